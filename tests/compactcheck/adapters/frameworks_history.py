"""One hand-made chat history with two tool turns, shared by the framework adapter tests."""

from __future__ import annotations

from typing import Any


def call(ident: str, name: str) -> dict[str, Any]:
    """An assistant message with one call to ``name`` on app.py."""
    arguments = '{"path": "app.py"}'
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix the bug in app.py"},
    call("c1", "read_file"),
    {"role": "tool", "tool_call_id": "c1", "content": "x = 1"},
    {"role": "assistant", "content": "Read it."},
    {"role": "user", "content": "And the tests?"},
    call("c2", "run_tests"),
    {"role": "tool", "tool_call_id": "c2", "content": "2 passed"},
    {"role": "assistant", "content": "Done."},
]


def kept(*indexes: int) -> list[dict[str, Any]]:
    """The messages of HISTORY at these indexes."""
    return [HISTORY[index] for index in indexes]
