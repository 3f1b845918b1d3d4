"""Microsoft Agent Framework's strategies, run through apply_compaction on a known history."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from compactcheck.adapters import ADAPTERS, MissingExtraError
from tests.compactcheck.adapters.frameworks_history import HISTORY, kept

TOOL_SUMMARY = {"role": "assistant", "content": "[Tool results: read_file: x = 1]"}


def _apply(name: str, parameters: dict[str, Any]) -> list[dict[str, Any]]:
    pytest.importorskip("agent_framework", reason="needs the 'agent-framework' extra")
    from compactcheck.adapters.agent_framework_compaction import ADAPTERS as KINDS

    return KINDS[name](name).apply(HISTORY, parameters)


def test_the_targets_are_registered() -> None:
    assert sorted(name for name in ADAPTERS if name.startswith("agent-framework:")) == [
        "agent-framework:persisted-summarization",
        "agent-framework:selective-tool-call",
        "agent-framework:sliding-window",
        "agent-framework:summarization",
        "agent-framework:token-budget",
        "agent-framework:tool-result",
        "agent-framework:truncation",
    ]


def test_truncation_sends_the_kept_groups_not_the_excluded_ones() -> None:
    # compact_to 5 messages, the first user group protected: the oldest groups after it are
    # marked excluded, and only the included messages are what the model would be sent.
    parameters = {"metric": "messages", "compact_to": 5, "max_n": 5}
    answer = _apply("agent-framework:truncation", {**parameters, "preserve_first_user_group": True})
    assert answer == kept(0, 1, 6, 7, 8)


def test_sliding_window_keeps_the_last_groups_and_the_system_message() -> None:
    assert _apply("agent-framework:sliding-window", {"keep_last_groups": 2}) == kept(0, 6, 7, 8)


def test_selective_tool_call_drops_the_older_tool_group_whole() -> None:
    answer = _apply("agent-framework:selective-tool-call", {"keep_last_tool_call_groups": 1})
    assert answer == kept(0, 1, 4, 5, 6, 7, 8)


def test_tool_result_puts_a_summary_line_where_the_older_group_was() -> None:
    answer = _apply("agent-framework:tool-result", {"keep_last_tool_call_groups": 1})
    assert answer == [*kept(0, 1), TOOL_SUMMARY, *kept(4, 5, 6, 7, 8)]


def test_summarization_replaces_older_groups_by_one_assistant_summary() -> None:
    answer = _apply("agent-framework:summarization", {"target_count": 3, "threshold": 0})
    assert answer[0] == HISTORY[0]
    assert answer[2:] == kept(6, 7, 8)
    summary = answer[1]
    assert summary["role"] == "assistant"
    # The echo client repeats the transcript the strategy showed it, call ids included.
    for said in ("Goal: fix the bug in app.py", "[call_id=c1]", "x = 1", "And the tests?"):
        assert said in summary["content"]


def test_a_persisted_summary_is_what_the_next_turn_loads() -> None:
    # Compacted after the run, the session serialised to JSON and restored: the next turn loads
    # the summary and the kept group, not the originals the summary replaced.
    parameters = {"target_count": 3, "threshold": 0}
    answer = _apply("agent-framework:persisted-summarization", parameters)
    assert answer == _apply("agent-framework:summarization", parameters)
    assert answer[2:] == kept(6, 7, 8)


def test_token_budget_stops_once_the_tool_results_are_collapsed() -> None:
    parameters = {"token_budget": 300, "keep_last_groups": 2, "early_stop": True}
    answer = _apply("agent-framework:token-budget", parameters)
    assert answer == [*kept(0, 1), TOOL_SUMMARY, *kept(4, 5, 6, 7, 8)]


def test_the_same_history_twice_gets_the_same_answer() -> None:
    # A list handed to apply_compaction is marked in place; each call converts afresh.
    pytest.importorskip("agent_framework", reason="needs the 'agent-framework' extra")
    backend = ADAPTERS["agent-framework:sliding-window"](timeout=30.0, budget=None)
    first = backend.compact("messages", {"messages": HISTORY, "knobs": [0]})
    again = backend.compact("messages", {"messages": HISTORY, "knobs": [0]})
    assert first.result is not None
    assert first.result == (again.result or {})
    assert len(first.result["messages"]) < len(HISTORY)


def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agent_framework", None)
    for ours in ("agent_framework_compaction", "convert_agent_framework"):
        monkeypatch.delitem(sys.modules, f"compactcheck.adapters.{ours}", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[agent-framework\]'"):
        ADAPTERS["agent-framework:truncation"](timeout=1.0, budget=None)
