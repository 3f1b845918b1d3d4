"""maybe_compact: the seed's scenario, atomic failure, both modes, determinism."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from compactcheck.invariants import AgentEvent, CompactorInput, ContextUsage, SnapshotDraft
from compactcheck.reference_engine.snapshot import (
    CompactionError,
    EngineConfig,
    FixedCompactor,
    ReferenceCompactor,
    SnapshotDesign,
    checksum_matches,
    compactor_input,
    maybe_compact,
)
from tests.reference_engine.snapshot.builders import (
    OVER_TRIGGER,
    event,
    events_through_completed_step,
    long_running_state,
)

FIXED = EngineConfig(clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))


def test_seed_scenario_keeps_authoritative_state_and_replaces_old_history() -> None:
    state = long_running_state()
    original_plan = state.plan
    events = events_through_completed_step()
    outcome = maybe_compact(state, events, OVER_TRIGGER, ReferenceCompactor(), config=FIXED)
    assert outcome.kind == "compacted"
    snapshot = outcome.state.compaction.snapshots[-1]
    assert snapshot.goal == state.task
    assert "run-tests" in [work.step_id for work in snapshot.pending_work]
    assert snapshot.changed_files == state.changed_files
    assert outcome.state.plan == original_plan
    assert outcome.state.plan is original_plan
    assert outcome.state.compaction.compacted_through_event == events[-1].sequence
    assert checksum_matches(snapshot)
    started, completed = outcome.emitted
    assert started.type == "compaction_started"
    assert started.payload["through"] == events[-1].sequence
    assert completed.type == "compaction_completed"
    assert completed.payload["snapshotId"] == snapshot.id
    assert completed.payload["sourceEventRange"] == {"from": 1, "to": events[-1].sequence}
    assert outcome.made_progress


@pytest.mark.parametrize("mode", list(SnapshotDesign))
def test_a_rejected_snapshot_leaves_the_state_exactly_as_it_was(mode: SnapshotDesign) -> None:
    state = long_running_state()
    before = state.to_json_data()
    draft = ReferenceCompactor().compact(
        compactor_input(state, events_through_completed_step(), SnapshotDesign.CORRECTED)
    )
    broken = FixedCompactor(draft.model_copy(update={"changed_files": ("loader.py",)}))
    config = EngineConfig(mode=mode, clock=FIXED.clock)
    outcome = maybe_compact(
        state, events_through_completed_step(), OVER_TRIGGER, broken, config=config
    )
    assert outcome.kind == "rejected"
    assert outcome.failed_rules == ("changed_files",)
    assert "docs/settings.md" in outcome.failures[0].message
    assert outcome.state is state
    assert state.to_json_data() == before
    if mode is SnapshotDesign.LITERAL:
        # The seed's gap, reproduced: a compaction_started with no partner.
        assert [e.type for e in outcome.emitted] == ["compaction_started"]
    else:
        assert [e.type for e in outcome.emitted] == ["compaction_started", "compaction_failed"]
        assert outcome.emitted[1].payload["rules"] == ["changed_files"]


def test_nothing_happens_below_the_trigger_or_at_an_unsafe_boundary() -> None:
    state = long_running_state()
    events = events_through_completed_step()
    low = ContextUsage(
        estimated_input_tokens=10, context_window_tokens=100_000, reserved_output_tokens=10_000
    )
    assert maybe_compact(state, events, low, ReferenceCompactor()).kind == "below_threshold"
    pending = maybe_compact(state, events, OVER_TRIGGER, ReferenceCompactor(), pending_outputs=1)
    assert pending.kind == "unsafe_boundary"
    assert pending.state is state
    assert pending.emitted == ()


def test_compacting_before_the_plan_exists_is_refused() -> None:
    state = long_running_state(plan=None)
    with pytest.raises(CompactionError, match="before plan initialization"):
        maybe_compact(state, events_through_completed_step(), OVER_TRIGGER, ReferenceCompactor())


def test_literal_input_carries_only_the_seed_fields() -> None:
    state = long_running_state()
    handed = compactor_input(state, events_through_completed_step(), SnapshotDesign.LITERAL)
    assert set(handed.to_json_data()) == {
        "task",
        "plan",
        "events",
        "activeSkillNames",
        "changedFiles",
    }
    corrected = compactor_input(state, events_through_completed_step(), SnapshotDesign.CORRECTED)
    assert corrected.state == state


class _Mutating:
    """A compactor that edits a payload it was handed (payload dicts are mutable)."""

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        compactor_input.events[0].payload["text"] = "rewritten"
        return ReferenceCompactor().compact(compactor_input)


def test_corrected_mode_refuses_a_compactor_that_mutates_its_input() -> None:
    with pytest.raises(CompactionError, match="mutated the input"):
        maybe_compact(
            long_running_state(), events_through_completed_step(), OVER_TRIGGER, _Mutating()
        )


def test_same_inputs_give_the_same_snapshot() -> None:
    def run() -> str:
        outcome = maybe_compact(
            long_running_state(),
            events_through_completed_step(),
            OVER_TRIGGER,
            ReferenceCompactor(),
            config=FIXED,
        )
        assert outcome.snapshot is not None
        return outcome.snapshot.to_json_data().__repr__()

    assert run() == run()


def _second_round_events(first: list[AgentEvent]) -> list[AgentEvent]:
    start = first[-1].sequence + 3  # leave room for the two events the engine emitted
    return [event(start + i, "assistant_output", text=f"Later work item {i}.") for i in range(20)]


@pytest.mark.parametrize(
    ("mode", "kind"),
    [(SnapshotDesign.CORRECTED, "compacted"), (SnapshotDesign.LITERAL, "rejected")],
)
def test_second_round_needs_the_authoritative_state(mode: SnapshotDesign, kind: str) -> None:
    config = EngineConfig(mode=mode, clock=FIXED.clock)
    state = long_running_state()
    events = events_through_completed_step()
    first = maybe_compact(state, events, OVER_TRIGGER, ReferenceCompactor(), config=config)
    assert first.kind == "compacted"
    log = [*events, *first.emitted, *_second_round_events(events)]
    second = maybe_compact(first.state, log, OVER_TRIGGER, ReferenceCompactor(), config=config)
    assert second.kind == kind
    if mode is SnapshotDesign.LITERAL:
        assert set(second.failed_rules) == {"constraints", "failed_attempts", "validation_results"}
    else:
        assert second.state.compaction.compacted_through_event == log[-1].sequence
        assert len(second.state.compaction.snapshots) == 2
