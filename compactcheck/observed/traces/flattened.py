"""Flattened span attributes (``llm.input_messages.0.message.role``) read back into lists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def unflatten(attributes: Mapping[str, Any], prefix: str) -> list[Any]:
    """The list that ``prefix.N.a.b`` attributes flatten, each item nested by its dotted keys.

    A numeric segment is a list index (items are ordered by it, gaps closed); any other segment
    is a key. Attributes not under ``prefix.`` are ignored.
    """
    root: dict[str, Any] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        node = root
        parts = key[len(start) :].split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = value
    found = _listed(root)
    return found if isinstance(found, list) else []


def _listed(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(key.isdigit() for key in node):
        return [_listed(node[key]) for key in sorted(node, key=int)]
    return {key: _listed(value) for key, value in node.items()}


__all__ = ["unflatten"]
