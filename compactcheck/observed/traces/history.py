"""A call's history as a conversation holds it: each item once, and the key it is compared by.

The calls of one agent repeat most of each other's history, so a conversation keeps every
distinct item once (its JSON text, shared by every call that sent it) and each call as a tuple
of references: memory grows with what the agent said, not with the calls times their length.

Two items are the same message when their keys are equal: the item without what the provider
itself returns or the client adds for the provider's sake, which a compaction does not decide:
ids of Responses items, ``status``, cache markers (``cache_control``), empty or null fields the
client fills in (``refusal``, ``annotations``, ``audio``, ``function_call``), Gemini's
``thoughtSignature``. A text given as one text part is its text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from compactcheck.invariants.formats import Format

_PROVIDER_FIELDS = frozenset(
    {
        "cache_control",
        "status",
        "annotations",
        "refusal",
        "audio",
        "function_call",
        "logprobs",
        "thoughtSignature",
        "thought_signature",
        "signature_delta",
        "parsed",
        "reasoning_content",
    }
)


def _plain(value: Any, top: bool, format: Format) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _PROVIDER_FIELDS and item in (None, [], {}, ""):
                continue
            if key == "cache_control":
                continue
            if top and key == "id" and format == "openai-responses":
                continue
            if item is None or (key == "content" and item in ("", [])):
                continue
            out[key] = _plain(item, False, format)
        content = out.get("content")
        if (
            isinstance(content, list)
            and len(content) == 1
            and isinstance(content[0], dict)
            and set(content[0]) <= {"type", "text"}
            and content[0].get("type") in ("text", "input_text", "output_text")
        ):
            out["content"] = content[0].get("text", "")
        if out.get("type") == "message" and format == "openai-responses":
            del out["type"]
        return out
    if isinstance(value, list):
        return [_plain(item, False, format) for item in value]
    return value


def key_of(item: Any, format: Format) -> str:
    """The key two items of ``format`` are compared by (see the module docstring)."""
    return orjson.dumps(_plain(item, True, format), option=orjson.OPT_SORT_KEYS).decode()


@dataclass(frozen=True, slots=True)
class Stored:
    """A call's history as references into its conversation's table: texts and keys."""

    texts: tuple[str, ...]
    keys: tuple[str, ...]

    def items(self) -> list[Any]:
        """The items as recorded (each parsed from its one stored text)."""
        return [orjson.loads(text) for text in self.texts]


class Table:
    """Each distinct item text and key of one conversation, stored once."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def _one(self, text: str) -> str:
        return self._seen.setdefault(text, text)

    def store(self, items: Iterable[Any], format: Format) -> Stored:
        """The items as references into the table."""
        texts: list[str] = []
        keys: list[str] = []
        for item in items:
            texts.append(self._one(orjson.dumps(item).decode()))
            keys.append(self._one(key_of(item, format)))
        return Stored(tuple(texts), tuple(keys))


__all__ = ["Stored", "Table", "key_of"]
