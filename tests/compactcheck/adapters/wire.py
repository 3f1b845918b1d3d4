"""Chat dicts that generated histories never hold: names, text parts, odd arguments."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest


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


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image(**detail: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png", **detail}}


# One history per content form (compactcheck.strategies.shapes.CONTENT_FORMS), holding it.
FORM_HISTORIES: dict[str, list[dict[str, Any]]] = {
    "system_parts": [{"role": "system", "content": [_text("Be careful."), _text("- [c1] x")]}],
    "user_parts": [{"role": "user", "content": [_text("Goal: fix"), _text("Go on.")]}],
    "assistant_parts": [{"role": "assistant", "content": [_text("Read it.")]}],
    "tool_parts": [
        {"role": "assistant", "tool_calls": [_call("c1", '{"path":"a.py"}')]},
        {"role": "tool", "tool_call_id": "c1", "content": [_text("x = 1")]},
    ],
    "image": [
        {"role": "user", "content": [_text("Goal: fix"), _image(), _text("Go on.")]},
        {"role": "user", "content": [_image(detail="low")]},
    ],
    "refusal": [{"role": "assistant", "content": [{"type": "refusal", "refusal": "I won't."}]}],
    "null_content": [
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", '{"path":"a.py"}')]}
    ],
    "names": [{"role": "user", "content": "hi", "name": "ada"}],
}


def assert_form_held_or_declared(
    form: str,
    to: Callable[[list[dict[str, Any]]], Any],
    back: Callable[[Any], list[dict[str, Any]]],
    unheld: Mapping[str, str],
) -> None:
    """A converter carries ``form`` there and back, or declares it unheld and refuses it."""
    history = FORM_HISTORIES[form]
    if form in unheld:
        with pytest.raises(ValueError, match=r"^message \d"):
            to(history)
    else:
        assert back(to(history)) == history
