"""LangChain's context editing on a hand-made history: which results and arguments it clears."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain", reason="needs the 'langchain' extra")

from compactcheck.adapters.langchain_context_editing import ContextEditing


def _call(ident: str, arguments: str) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": "read", "arguments": arguments}}


# The first call's arguments are not in the compact form the converter prints back, so the
# converter keeps their string: a cleared call must not get it back.
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix"},
    {"role": "assistant", "tool_calls": [_call("c1", '{"path": "a.py"}')]},
    {"role": "tool", "tool_call_id": "c1", "content": "x" * 400},
    {"role": "assistant", "tool_calls": [_call("c2", '{"path":"b.py"}')]},
    {"role": "tool", "tool_call_id": "c2", "content": "y" * 400},
    {"role": "assistant", "content": "Done."},
]


def _settings(**changed: Any) -> dict[str, Any]:
    return {"trigger": 10, "keep": 1, "clear_at_least": 0, "clear_tool_inputs": False, **changed}


def test_old_results_become_the_placeholder_and_the_newest_is_kept() -> None:
    out = ContextEditing("langchain:context-editing").apply(HISTORY, _settings())
    expected = [dict(m) for m in HISTORY]
    expected[3] = {**HISTORY[3], "content": "[cleared]"}
    assert out == expected


def test_cleared_inputs_are_empty_arguments_not_the_original_string() -> None:
    out = ContextEditing("langchain:context-editing").apply(
        HISTORY, _settings(clear_tool_inputs=True)
    )
    assert out[2] == {"role": "assistant", "tool_calls": [_call("c1", "{}")]}
    assert out[4] == HISTORY[4]


def test_below_the_trigger_nothing_changes() -> None:
    out = ContextEditing("langchain:context-editing").apply(HISTORY, _settings(trigger=10_000))
    assert out == HISTORY
