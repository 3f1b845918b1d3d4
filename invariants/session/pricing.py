"""The fixed token heuristic: about four UTF-16 code units per token plus small overheads.

A surface node is priced as the message it renders to (``node_price``), kept per event.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.messages import raw_event_message


def js_length(text: str) -> int:
    """A string's length as JavaScript counts it (UTF-16 code units)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def _quarter(text: str) -> int:
    return -(-js_length(text) // 4)


# One encoder: ``json.dumps`` with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def js_json(value: Any) -> str:
    """JSON text as JSON.stringify writes it (no spaces, non-ASCII kept)."""
    return _ENCODER.encode(value)


def estimate_block(block: Any) -> int:
    """The price of one raw content block."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind in ("text", "reasoning"):
        text = block.get("text")
        if type(text) is str and text.isascii():
            # Most blocks: ASCII text, priced without a call per length.
            return -(-len(text) // 4) + 4
        if isinstance(text, str):
            return _quarter(text) + 4
    elif kind == "tool-call" and isinstance(block.get("name"), str):
        return _quarter(block["name"]) + _quarter(str(block.get("arguments", ""))) + 4
    elif kind == "tool-result" and isinstance(block.get("content"), list):
        return estimate_blocks(block["content"]) + 4
    return 4 + _quarter(js_json(block))


def estimate_blocks(blocks: Sequence[Any]) -> int:
    """The price of a list of raw content blocks."""
    total = 0
    for block in blocks:
        total += estimate_block(block)
    return total


def estimate_message(message: Any) -> int:
    """The price of one raw message: its blocks plus four for the role."""
    if not isinstance(message, dict):
        return 0
    content = message.get("content")
    return (estimate_blocks(content) if isinstance(content, list) else 0) + 4


def estimate_envelope(system: str | None, tools: Sequence[Any] | None) -> int:
    """The price of the request envelope: system prompt and tool schemas."""
    price = 0
    if system:
        price += _quarter(system) + 4
    if tools:
        price += _quarter(js_json(list(tools))) + 4
    return price


# Prices of events priced lately, by the event object (kept in the entry, so that its id is not
# reused while the entry lives): within a case the same events are priced by the harness, the
# engine's meter, the log check and the laws. Events are frozen; cleared when full.
_PRICED: dict[int, tuple[SessionEvent, int]] = {}
_PRICED_KEPT = 8192


def node_price(event: SessionEvent) -> int:
    """The heuristic price of a surface node (0 when it renders to nothing)."""
    kept = _PRICED.get(id(event))
    if kept is not None and kept[0] is event:
        return kept[1]
    message = raw_event_message(event)
    price = 0 if message is None else estimate_message(message)
    if len(_PRICED) >= _PRICED_KEPT:
        _PRICED.clear()
    _PRICED[id(event)] = (event, price)
    return price
