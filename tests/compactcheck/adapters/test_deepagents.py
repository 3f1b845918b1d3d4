"""deepagents' summarization with PatchToolCallsMiddleware, on hand-made histories."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("deepagents", reason="needs the 'deepagents' extra")

from compactcheck.adapters.deepagents_summarization import DeepAgentsSummarization

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "read", "arguments": '{"path":"a.py"}'},
}
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix"},
    {"role": "assistant", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "wrote app.py"},
    {"role": "assistant", "content": "Starting s1."},
    {"role": "user", "content": "Go on."},
    {"role": "assistant", "content": "Done."},
]


def _settings(**changed: Any) -> dict[str, Any]:
    return {
        "trigger_unit": "messages",
        "trigger_at": 2,
        "keep_unit": "messages",
        "keep": 2,
        "trim_tokens_to_summarize": None,
        **changed,
    }


def test_the_summary_names_the_history_file_and_holds_what_it_replaced() -> None:
    out = DeepAgentsSummarization("deepagents:summarization").apply(HISTORY, _settings())
    assert out[0] == HISTORY[0]
    assert out[2:] == HISTORY[5:]
    summary = out[1]
    assert summary["role"] == "user"
    assert "/conversation_history/session_compactcheck.md" in summary["content"]
    for kept in ("Goal: fix", "call c1: read({'path': 'a.py'})", "wrote app.py", "Starting s1."):
        assert kept in summary["content"]


def test_a_dangling_call_is_answered_before_the_model_is_called() -> None:
    dangling = [*HISTORY[:3], {"role": "user", "content": "Go on."}]
    out = DeepAgentsSummarization("deepagents:summarization").apply(
        dangling, _settings(trigger_at=100)
    )
    assert out[:3] == dangling[:3]
    assert out[3]["role"] == "tool"
    assert out[3]["tool_call_id"] == "c1"
    assert "did not complete" in out[3]["content"]
    assert out[4] == dangling[3]


def test_below_the_trigger_nothing_changes() -> None:
    out = DeepAgentsSummarization("deepagents:summarization").apply(
        HISTORY, _settings(trigger_at=100)
    )
    assert out == HISTORY
