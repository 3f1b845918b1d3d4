"""Each corruption breaks its history in a way the matching oracle detects."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

from compactcheck.invariants import AgentEvent
from compactcheck.invariants.session import SessionEvent, check_log
from compactcheck.reference_engine.snapshot import HistoryError, check_history
from compactcheck.strategies.corruption import (
    Corrupted,
    corrupted_message_histories,
    corrupted_session_histories,
    corrupted_snapshot_histories,
)
from compactcheck.strategies.messages_view import MessageHistory
from compactcheck.strategies.session_view import SessionHistory
from compactcheck.strategies.snapshot_view import SnapshotHistory
from tests.strategies.provider_oracle import event_rejections, provider_rejections


def _history_error(events: tuple[AgentEvent, ...]) -> str | None:
    try:
        check_history(events)
    except HistoryError as error:
        return str(error)
    return None


@settings(max_examples=100, deadline=None)
@given(corrupted_snapshot_histories())
def test_every_event_corruption_is_detected(
    corrupted: Corrupted[SnapshotHistory, tuple[AgentEvent, ...]],
) -> None:
    original = corrupted.original.view
    assert _history_error(original.events) is None
    pending = original.pending_tool_calls
    problems = event_rejections(corrupted.data, pending=pending)
    assert problems, corrupted.detail
    if corrupted.kind in ("reordered_events", "duplicated_event"):
        # The engine's own input validation must refuse these before compacting.
        assert _history_error(corrupted.data) is not None, corrupted.detail


@settings(max_examples=100, deadline=None)
@given(corrupted_message_histories())
def test_every_message_corruption_is_refused_by_the_provider_oracle(
    corrupted: Corrupted[MessageHistory, list[dict[str, Any]]],
) -> None:
    pending = bool(corrupted.original.view.pending_call_ids)
    assert provider_rejections(corrupted.original.view.as_dicts(), allow_pending=pending) == []
    assert provider_rejections(corrupted.data, allow_pending=pending), corrupted.detail


@settings(max_examples=100, deadline=None)
@given(corrupted_session_histories())
def test_every_session_corruption_is_caught_by_the_log_checker(
    corrupted: Corrupted[SessionHistory, tuple[SessionEvent, ...]],
) -> None:
    assert check_log(corrupted.original.view.events) is None
    assert check_log(corrupted.data) is not None, corrupted.detail
