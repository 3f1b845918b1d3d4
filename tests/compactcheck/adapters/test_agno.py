"""agno's compaction on hand-made histories, and the agno converter's round trip."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("agno", reason="needs the 'agno' extra")

from compactcheck.adapters.agno_compaction import AgnoCompaction
from compactcheck.adapters.convert_agno import from_agno, to_agno


def _call(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": "read", "arguments": "{}"}}


HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix"},
    {"role": "assistant", "tool_calls": [_call("c1")]},
    {"role": "tool", "tool_call_id": "c1", "content": "x" * 400},
    {"role": "assistant", "content": "Starting s1."},
    {"role": "user", "content": "Go on."},
    {"role": "assistant", "tool_calls": [_call("c2")]},
    {"role": "tool", "tool_call_id": "c2", "content": "y" * 400},
]


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_agno(to_agno(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_agno(to_agno([message])) == [message]


def test_the_last_run_is_kept_behind_a_summary_of_the_rest() -> None:
    out = AgnoCompaction("agno:compaction").apply(
        HISTORY,
        {"compact_at_tokens": 20, "uncompacted_runs": 1, "enforce_min_fold_ratio": False},
    )
    assert out[0] == HISTORY[0]
    assert out[2:] == HISTORY[5:]
    summary = out[1]
    assert summary["role"] == "user"
    assert summary["content"].startswith("Summary of earlier conversation")
    assert "Goal: fix" in summary["content"]
    assert "Starting s1." in summary["content"]


def test_a_token_tail_never_starts_on_a_tool_result() -> None:
    # Ten tokens keep only part of the last result: the cut moves back to its call (and to the
    # user turn that opens that exchange), never between the call and its result.
    out = AgnoCompaction("agno:compaction").apply(
        HISTORY,
        {"compact_at_tokens": 20, "uncompacted_tokens": 10, "enforce_min_fold_ratio": False},
    )
    assert out[2:] == HISTORY[5:]


def test_below_the_threshold_nothing_changes() -> None:
    out = AgnoCompaction("agno:compaction").apply(
        HISTORY,
        {"compact_at_tokens": 10_000, "uncompacted_runs": 1, "enforce_min_fold_ratio": False},
    )
    assert out == HISTORY
