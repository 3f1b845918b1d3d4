"""The snapshot-view laws: silent on the reference pipeline, loud on every mutant."""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import NoSuchExample

from compactcheck.invariants import Facts
from compactcheck.invariants.catalogue import catalogue, run_checks, select
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.reference_engine.mutants import Mutant
from compactcheck.reference_engine.mutants.snapshot import SNAPSHOT_MUTANTS
from compactcheck.reference_engine.snapshot import SnapshotPipeline, is_safe_boundary
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories
from tests.reference_engine.snapshot.builders import (
    events_through_completed_step,
    long_running_state,
)

SNAPSHOT_LAWS = catalogue("snapshot")

Example = tuple[SnapshotBefore, SnapshotAfter, Facts]


def compacted(pipeline: SnapshotPipeline, projected: Projected[SnapshotHistory]) -> Example | None:
    """Run one compaction at a safe boundary; None when the pipeline would not compact."""
    history = projected.view
    state = history.state
    if not is_safe_boundary(state.status, history.pending_tool_calls, history.pending_outputs):
        return None
    done = pipeline.compact(state, history.events)
    if done is None:
        return None
    before, after, _ = done
    facts = Facts.of_state(state, superseded=projected.truth.superseded_constraints)
    return before, after, facts


def test_catalogue_has_every_snapshot_law_of_issue_five() -> None:
    assert [law.id for law in SNAPSHOT_LAWS] == [
        "goal_preserved",
        "constraints_preserved",
        "acceptance_criteria_preserved",
        "completed_work_preserved",
        "pending_steps_preserved",
        "changed_files_preserved",
        "active_skills_preserved",
        "failed_attempts_preserved",
        "validation_results_preserved",
        "unresolved_questions_preserved",
        "evidence_in_range",
        "source_range_valid",
        "checksum_valid",
        "raw_tail_preserved",
        "tool_pairing",
        "state_untouched",
        "progress",
    ]


def test_reference_passes_the_hand_built_history() -> None:
    state = long_running_state(pendingUserInput={"question": "Keep INI?"})
    done = SnapshotPipeline().compact(state, events_through_completed_step())
    assert done is not None
    before, after, carried = done
    findings = run_checks(SNAPSHOT_LAWS, before, after, Facts.of_state(state))
    assert [f.invariant for f in findings if not f.holds] == []
    assert carried.compaction.compacted_through_event == before.events[-1].sequence


def test_reference_pipeline_breaks_no_law_and_exercises_every_law() -> None:
    exercised: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(snapshot_histories())
    def reference_holds(projected: Projected[SnapshotHistory]) -> None:
        example = compacted(SnapshotPipeline(), projected)
        outcomes["compacted" if example is not None else "not compacted"] += 1
        if example is None:
            return
        for finding in run_checks(SNAPSHOT_LAWS, *example):
            assert finding.holds, [v.because for v in finding.violations]
            exercised[finding.invariant] += finding.exercised

    reference_holds()
    total = outcomes["compacted"]
    # Small histories are declined (the snapshot would outweigh them) or sit at an unsafe
    # boundary; the laws are only judged on real compactions.
    assert total >= 80, outcomes
    shares = {law.id: round(exercised[law.id] / total, 2) for law in SNAPSHOT_LAWS}
    print(f"\nsnapshot laws exercised over {total} compactions ({dict(outcomes)}): {shares}")
    thin = {law: share for law, share in shares.items() if share < 0.05}
    assert not thin, thin


@pytest.mark.parametrize("mutant", SNAPSHOT_MUTANTS, ids=[m.name for m in SNAPSHOT_MUTANTS])
def test_mutant_is_caught_by_its_law_with_a_small_witness(mutant: Mutant) -> None:
    [law] = select("snapshot", [mutant.targets])
    pipeline = mutant.build()

    def broken(projected: Projected[SnapshotHistory]) -> bool:
        # A copy, so that a mutant which edits its input in place leaves the witness intact.
        example = compacted(pipeline, copy.deepcopy(projected))
        return example is not None and not law.check(*example).holds

    # Carried-over evidence only shows on a history that an earlier compaction already folded.
    histories = (
        snapshot_histories().filter(lambda p: bool(p.view.state.compaction.snapshots))
        if mutant.name == "snapshot-stale-evidence"
        else snapshot_histories()
    )
    try:
        witness = find(
            histories,
            broken,
            settings=settings(max_examples=100, database=None, deadline=None, derandomize=True),
        )
    except NoSuchExample:
        pytest.fail(f"{mutant.name} was not caught by {mutant.targets} within 100 examples")
    example = compacted(mutant.build(), copy.deepcopy(witness))
    assert example is not None
    violations = law.check(*example).violations
    assert violations
    assert all(v.because for v in violations)
    assert all(len(v.witness) <= 4 for v in violations), [v.witness for v in violations]
    size = len(witness.view.events)
    assert size <= mutant.max_witness, f"shrunk witness has {size} events"
