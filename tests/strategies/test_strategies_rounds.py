"""The multi-round state machine, run against the snapshot reference engine."""

from __future__ import annotations

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from reference_engine.snapshot import ReferenceCompactor, maybe_compact
from strategies.rounds import Round, RoundResult, compaction_rounds
from strategies.snapshot_view import SnapshotHistory


def reference_backend(history: SnapshotHistory) -> RoundResult:
    outcome = maybe_compact(
        history.state,
        history.events,
        history.usage,
        ReferenceCompactor(),
        pending_tool_calls=history.pending_tool_calls,
    )
    return RoundResult(outcome.state, outcome.emitted)


def test_chained_compactions_keep_the_truth_every_round() -> None:
    seen: list[Round] = []

    def check(round_: Round) -> None:
        seen.append(round_)
        state = round_.result.state
        truth = round_.truth
        before = round_.before.state
        # Compaction never rewrites the authoritative state, only its compaction record.
        assert state.model_copy(update={"compaction": before.compaction}) == before
        snapshots = state.compaction.snapshots
        if len(snapshots) > len(before.compaction.snapshots):
            latest = snapshots[-1]
            assert latest.goal == truth.goal
            assert set(latest.constraints) == set(truth.constraints)
            assert not set(latest.constraints) & set(truth.superseded_constraints)
            assert set(latest.changed_files) >= set(truth.changed_files)
            assert {item.step_id for item in latest.pending_work} == set(truth.pending_step_ids)
            assert state.compaction.compacted_through_event == latest.source_event_range.to
        if round_.before.pending_tool_calls:
            assert round_.result.emitted == ()

    machine = compaction_rounds(reference_backend, check)
    run_state_machine_as_test(
        machine, settings=settings(max_examples=25, stateful_step_count=30, deadline=None)
    )
    assert seen, "the compact rule never ran"
    assert any(len(r.result.state.compaction.snapshots) >= 2 for r in seen)
