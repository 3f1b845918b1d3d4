"""Built-in adapters for third-party compactors, named like ``langchain:trim_messages``."""

from __future__ import annotations

from collections.abc import Callable

from compactcheck.backend import Backend
from invariants import View

AdapterFactory = Callable[..., Backend]
"""Called as ``factory(timeout=seconds, budget=Budget | None)``; returns a ready backend."""

# Filled by the adapter modules below as they are added; `compactcheck targets` lists them.
ADAPTERS: dict[str, AdapterFactory] = {}
DESCRIPTIONS: dict[str, tuple[View, str]] = {}

__all__ = ["ADAPTERS", "DESCRIPTIONS", "AdapterFactory"]
