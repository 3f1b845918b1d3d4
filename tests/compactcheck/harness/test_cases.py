"""Multi-round cases: rounds end at turn boundaries, and chained rounds carry the compaction."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from compactcheck.harness import Case, SnapshotDriver, cases
from compactcheck.harness.cases import KNOBS
from compactcheck.invariants import CompactorInput, SnapshotDraft
from compactcheck.invariants.catalogue import catalogue
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.reference_engine.snapshot import ReferenceCompactor, SnapshotPipeline
from compactcheck.strategies import GroundTruth, Scenario, scenarios
from compactcheck.strategies.messages_view import MessageRecorder
from compactcheck.strategies.projected import History, Recorder
from compactcheck.strategies.scenario_model import Ledger, walk
from compactcheck.strategies.session_view import SessionRecorder
from compactcheck.strategies.snapshot_view import SnapshotRecorder


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4).flatmap(lambda rounds: st.tuples(st.just(rounds), cases(rounds))))
def test_rounds_end_at_turn_boundaries(drawn: tuple[int, Case]) -> None:
    rounds, case = drawn
    turns = case.scenario.turns
    assert 1 <= len(case.cuts) <= rounds
    assert list(case.cuts) == sorted(set(case.cuts))
    assert case.cuts[-1] == len(turns)
    assert case.prefix(len(case.cuts) - 1) == case.scenario
    for index, cut in enumerate(case.cuts[:-1]):
        prefix = case.prefix(index)
        assert prefix.turns == turns[:cut]
        assert prefix.pending_batch is None
    # Only the first round may fold an earlier compaction: later ones chain their own.
    assert not any(turn.compacted_before for turn in turns[case.cuts[0] :])
    assert len(case.knobs) == KNOBS


@settings(max_examples=60, deadline=None)
@given(cases(3))
def test_one_walk_projects_every_round_as_a_walk_of_its_prefix_would(case: Case) -> None:
    _projects_alike(case, MessageRecorder)
    _projects_alike(case, SnapshotRecorder)


def _projects_alike(case: Case, recorder: type[Recorder[History]]) -> None:
    rounds = case.projected(recorder)
    assert len(rounds) == len(case.cuts)
    for index, (prefix, history) in enumerate(rounds):
        alone = case.prefix(index)
        assert prefix == alone
        assert history == recorder.project(alone)
        # Each prefix's truth is its own walk's (a prefix ends as if its last turn were the run's).
        assert prefix.truth == _walked_truth(alone)


def _walked_truth(scenario: Scenario) -> GroundTruth:
    """The truth of a scenario walked afresh (not the one a projection left on it)."""
    ledger = Ledger(scenario)
    walk(scenario, ledger)
    return ledger.truth()


def test_a_session_recorder_projects_each_prefix_on_its_own() -> None:
    # Its last turn stays open while a batch is pending: a prefix cannot be read off the run.
    simplest = find(scenarios(min_turns=2, max_turns=2), lambda scenario: True)
    case = Case(scenario=simplest, cuts=(1, 2))
    with pytest.raises(ValueError, match="its own way"):
        case.projected(SessionRecorder)


@settings(max_examples=40, deadline=None)
@given(cases(3, "snapshot"))
def test_chained_snapshot_rounds_carry_the_compaction_state(case: Case) -> None:
    outcomes = SnapshotDriver(SnapshotPipeline()).run(case)
    previous: SnapshotAfter | None = None
    for outcome in outcomes:
        if outcome.status != "compacted":
            continue
        before, after = outcome.before, outcome.after
        assert isinstance(before, SnapshotBefore)
        assert isinstance(after, SnapshotAfter)
        if previous is not None:
            # The next round starts from the state the last compaction left.
            assert before.state.compaction.snapshots[-1] == previous.snapshot
        truth = case.prefix(outcome.round - 1).truth
        assert after.snapshot.goal == truth.goal
        assert set(after.snapshot.constraints) == set(truth.constraints)
        previous = after


def test_some_case_compacts_in_two_rounds() -> None:
    # Otherwise the chaining property above could hold vacuously.
    def compacts_twice(case: Case) -> bool:
        outcomes = SnapshotDriver(SnapshotPipeline()).run(case)
        return sum(outcome.status == "compacted" for outcome in outcomes) >= 2

    quick = settings(
        database=None, derandomize=True, max_examples=500, deadline=None, phases=[Phase.generate]
    )
    case = find(cases(3, "snapshot"), compacts_twice, settings=quick)
    assert len(case.cuts) >= 2


@dataclass(frozen=True)
class _NestedEditor:
    """Appends a call id to every batch's ``callIds`` it was handed, in place, then compacts."""

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        for event in compactor_input.events:
            ids = event.payload.get("callIds")
            if isinstance(ids, list):
                ids.append("call_forged")
        return ReferenceCompactor().compact(compactor_input)


def test_a_compactor_editing_nested_payload_in_place_leaves_the_recorded_input_alone() -> None:
    def batches_compacted(case: Case) -> bool:
        outcomes = SnapshotDriver(SnapshotPipeline()).run(case)
        return any(
            o.status == "compacted" and "tool_batch_started" in json.dumps(o.input)
            for o in outcomes
        )

    quick = settings(
        database=None, derandomize=True, max_examples=300, deadline=None, phases=[Phase.generate]
    )
    case = find(cases(1, "snapshot"), batches_compacted, settings=quick)
    [outcome] = SnapshotDriver(SnapshotPipeline(compactor=_NestedEditor())).run(case)
    # The edit is caught, and what was recorded is what the compactor was handed.
    assert outcome.status == "compacted"
    assert "call_forged" not in json.dumps(outcome.input)
    [law] = [law for law in catalogue("snapshot") if law.id == "state_untouched"]
    assert outcome.facts is not None
    assert not law.check(outcome.before, outcome.after, outcome.facts).holds


@dataclass(frozen=True)
class _DeepEditor:
    """Edits the lists and tool arguments nested in every payload it was handed, in place."""

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        for event in compactor_input.events:
            for key, value in event.payload.items():
                if isinstance(value, list):
                    value.append("forged")
                elif key == "arguments" and isinstance(value, dict):
                    value["forged"] = True
        return ReferenceCompactor().compact(compactor_input)


def test_in_place_edits_reach_neither_the_recorded_inputs_nor_the_later_rounds() -> None:
    # The recorded input is a dump of its own, and an earlier round's compactor gets copies of
    # the events that later rounds read too (one walk projects every round).
    def edits_then_runs_on(case: Case) -> bool:
        outcomes = SnapshotDriver(SnapshotPipeline()).run(case)
        return (
            len(outcomes) >= 2
            and outcomes[0].status == "compacted"
            and '"callIds"' in json.dumps(outcomes[0].input)
        )

    quick = settings(
        database=None, derandomize=True, max_examples=500, deadline=None, phases=[Phase.generate]
    )
    case = find(cases(3, "snapshot"), edits_then_runs_on, settings=quick)
    clean = SnapshotDriver(SnapshotPipeline()).run(case)
    edited = SnapshotDriver(SnapshotPipeline(compactor=_DeepEditor())).run(case)
    assert [outcome.input for outcome in edited] == [outcome.input for outcome in clean]
    assert "forged" not in json.dumps([outcome.input for outcome in edited])
    assert edited[0].after is not None
    assert "forged" in json.dumps(edited[0].after.handed)
