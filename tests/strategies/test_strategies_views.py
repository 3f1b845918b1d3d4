"""Every projection of every scenario is valid in its view."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings

from compactcheck.invariants import AgentEvent, AgentState, CompactorInput
from compactcheck.invariants.session import SessionEvent, check_log
from compactcheck.invariants.session.envelope import lossless_json_problem
from compactcheck.reference_engine.snapshot import (
    ReferenceCompactor,
    SnapshotDesign,
    check_history,
    compactor_input,
    maybe_compact,
)
from compactcheck.strategies.messages_view import (
    MessageHistory,
    MessageRecorder,
    message_histories,
    project_messages,
)
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenario_model import Ledger, Scenario, walk
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.session_view import SessionHistory, project_session, session_histories
from compactcheck.strategies.snapshot_view import (
    SnapshotHistory,
    project_snapshot,
    snapshot_histories,
)
from tests.strategies.provider_oracle import event_rejections, provider_rejections


@settings(max_examples=200, deadline=None)
@given(snapshot_histories())
def test_snapshot_projection_is_valid_input(projected: Projected[SnapshotHistory]) -> None:
    history = projected.view
    check_history(history.events)
    # The view builds its events without validating them: each must be what validation makes.
    for event in history.events:
        assert AgentEvent.from_json_data(event.to_json_data()) == event
    assert event_rejections(history.events, pending=history.pending_tool_calls) == []
    assert AgentState.from_json_data(history.state.to_json_data()) == history.state
    handed = compactor_input(history.state, history.events, SnapshotDesign.CORRECTED)
    assert CompactorInput.from_json_data(handed.to_json_data()) == handed
    # The input holds the events after the last compaction; the corrected design adds the state.
    folded = history.state.compaction.compacted_through_event
    assert handed.events == tuple(event for event in history.events if event.sequence > folded)
    assert handed.state == history.state
    literal = compactor_input(history.state, history.events, SnapshotDesign.LITERAL)
    assert literal == handed.model_copy(update={"state": None, "previous_snapshot": None})
    truth = projected.truth
    assert history.state.constraints == truth.constraints
    assert history.pending_tool_calls == len(truth.pending_call_ids)


@settings(max_examples=200, deadline=None)
@given(snapshot_histories())
def test_reference_engine_compacts_every_snapshot_projection(
    projected: Projected[SnapshotHistory],
) -> None:
    history = projected.view
    outcome = maybe_compact(
        history.state,
        history.events,
        history.usage,
        ReferenceCompactor(),
        pending_tool_calls=history.pending_tool_calls,
    )
    if not projected.scenario.over_threshold:
        assert outcome.kind == "below_threshold"
    elif history.pending_tool_calls:
        # A trailing pending batch is an unsafe boundary: the engine must wait.
        assert outcome.kind == "unsafe_boundary"
    elif outcome.kind == "rejected":
        # Only the progress rule may refuse: on a short history the snapshot can outweigh the
        # events it folds. Every rule about the snapshot's content holds.
        assert outcome.failed_rules == ("progress",), outcome.failures
        assert outcome.size_after >= outcome.size_before
    else:
        assert outcome.kind == "compacted", outcome
        assert outcome.snapshot is not None
        assert outcome.snapshot.constraints == projected.truth.constraints


@settings(max_examples=200, deadline=None)
@given(message_histories())
def test_every_message_list_is_one_a_provider_accepts(
    projected: Projected[MessageHistory],
) -> None:
    history = projected.view
    pending = projected.truth.pending_call_ids
    dicts = history.as_dicts()
    assert provider_rejections(dicts, allow_pending=bool(pending)) == []
    if pending:
        # The pending calls are exactly the trailing assistant message's, and only when asked.
        assert tuple(call["id"] for call in dicts[-1]["tool_calls"]) == pending
        assert provider_rejections(dicts, allow_pending=False) != []
    assert history.pending_call_ids == pending
    first_user = next(message for message in dicts if message["role"] == "user")
    assert projected.scenario.goal in first_user["content"]
    initial = projected.scenario.constraints
    assert all(constraint.text in dicts[0]["content"] for constraint in initial)


@settings(max_examples=200, deadline=None)
@given(session_histories())
def test_every_session_log_passes_the_log_checker(projected: Projected[SessionHistory]) -> None:
    history = projected.view
    assert check_log(history.events) is None
    # The view builds its events without validating them: each must be what validation makes.
    for event in history.events:
        assert SessionEvent.from_json_data(event.to_json_data()) == event
        assert lossless_json_problem(event.data) is None
    scenario = projected.scenario
    kinds = [event.type for event in history.events]
    assert kinds.count("turn/start") == len(scenario.turns)
    restarts = sum(turn.restarted_before for turn in scenario.turns)
    assert kinds.count("session/end-seed") == restarts
    compactions = sum(turn.compacted_before for turn in scenario.turns)
    assert kinds.count("compaction/summary") + history.skipped_compactions == compactions
    # A stale lock is a start left by the earlier lifecycle: one more start than ends.
    assert kinds.count("compaction/start") - kinds.count("compaction/end") == scenario.stale_lock
    assert (history.open_turn is not None) == bool(projected.truth.pending_call_ids)


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_a_projection_leaves_the_scenario_the_truth_a_walk_of_its_own_finds(
    scenario: Scenario,
) -> None:
    # Projecting seeds Scenario.truth from the recorder's ledger instead of walking again; each
    # recorder must have fed its ledger the whole walk for that to be the same truth.
    alone = Ledger(scenario)
    walk(scenario, alone)
    for project in (project_messages, project_snapshot, project_session):
        fresh = replace(scenario)
        project(fresh)
        assert fresh.truth == alone.truth()


@settings(max_examples=100, deadline=None)
@given(scenarios(), scenarios())
def test_a_messages_projection_is_the_same_with_its_caches_warm_or_cold(
    first: Scenario, second: Scenario
) -> None:
    # The recorder keeps the messages it built (batches, results, plain assistant text): after
    # projecting another scenario, a projection must equal one made with empty caches.
    project_messages(first)
    warm = project_messages(second)
    for cached in (MessageRecorder.batch, MessageRecorder.said, MessageRecorder.answer):
        cached.cache_clear()
    cold = project_messages(replace(second))
    assert warm == cold
    assert [message.to_json_data() for message in warm.messages] == [
        message.to_json_data() for message in cold.messages
    ]
