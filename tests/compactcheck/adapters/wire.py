"""Chat dicts that generated histories never hold: names, text parts, odd arguments."""

from __future__ import annotations

from typing import Any


def variants() -> list[dict[str, Any]]:
    """One message per wire feature a converter must carry or refuse."""
    return [
        {"role": "user", "content": "hi", "name": "ada"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": "", "tool_calls": [_call("c1", '{"b": 1, "a": 2}')]},
        {"role": "assistant", "tool_calls": [_call("c2", "not json"), _call("c3", "[1]")]},
        {"role": "assistant", "content": "thinking", "tool_calls": [_call("c4", "{}")]},
        {"role": "assistant", "content": ""},
        {"role": "tool", "tool_call_id": "c4", "content": ""},
    ]


def _call(ident: str, arguments: str) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": "f", "arguments": arguments}}
