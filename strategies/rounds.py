"""Multi-round compaction: a state machine that grows a run and compacts it again and again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from invariants import AgentEvent, AgentState, PlanStep, TaskPlan
from strategies import vocabulary as words
from strategies.scenario import (
    CompleteStep,
    Constraint,
    GroundTruth,
    Say,
    Scenario,
    StartStep,
    ToolBatch,
    ToolCallSpec,
    Turn,
)
from strategies.scenarios import Digits, batches
from strategies.snapshot_view import SnapshotHistory, SnapshotRecorder

PLAN_SIZE = 4


@dataclass(frozen=True)
class RoundResult:
    """What a backend did in one compaction: the state to go on with and the events it wrote."""

    state: AgentState
    emitted: tuple[AgentEvent, ...] = ()


class CompactionBackend(Protocol):
    """Anything that compacts a snapshot-view history (or declines to, returning it unchanged)."""

    def __call__(self, history: SnapshotHistory) -> RoundResult:
        """Compact the history."""
        ...


@dataclass(frozen=True)
class Round:
    """One compaction of the run: its number, the truth and history before, and the result."""

    number: int
    truth: GroundTruth
    before: SnapshotHistory
    result: RoundResult


RoundCheck = Callable[[Round], None]


def compaction_rounds(backend: CompactionBackend, check: RoundCheck) -> type[RuleBasedStateMachine]:
    """A state machine class whose ``compact`` rule calls ``backend`` and then ``check``.

    Its other rules append user input, constraint updates, tool batches (results immediate or
    late), file edits and validations (as tool calls), and step progress. Run it with
    ``run_state_machine_as_test`` or expose its ``TestCase`` to pytest.
    """

    class CompactionRounds(RuleBasedStateMachine):
        """Grow a run, compact it any number of times, check every round."""

        def __init__(self) -> None:
            super().__init__()
            steps = tuple(
                PlanStep(id=f"s{index + 1}", title=title, status="pending")
                for index, title in enumerate(words.STEP_TITLES[:PLAN_SIZE])
            )
            self.scenario = Scenario(
                run_id="run-rounds",
                goal=words.GOALS[0],
                constraints=(Constraint("c1", words.CONSTRAINTS[0]),),
                plan=TaskPlan(steps=steps),
                turns=(),
            )
            self.recorder = SnapshotRecorder(self.scenario)
            self.turns = 0
            self.calls = 0
            self.batches = 0
            self.constraints = 1
            self.late: list[ToolCallSpec] = []
            self.rounds = 0

        def _deliver_late(self) -> None:
            late, self.late = self.late, []
            for call in late:
                self.recorder.result(call, True)

        @initialize(text=st.sampled_from(words.USER_TEXTS))
        def first_turn(self, text: str) -> None:
            self.user_input(text, False, 0)

        @rule(
            text=st.sampled_from(words.USER_TEXTS),
            update=st.booleans(),
            which=st.integers(0, 7),
        )
        def user_input(self, text: str, update: bool, which: int) -> None:
            changes: tuple[Constraint, ...] = ()
            current = list(self.recorder.ledger.constraints)
            if update and current and self.constraints < len(words.CONSTRAINTS):
                self.constraints += 1
                changes = (
                    Constraint(
                        f"c{self.constraints}",
                        words.CONSTRAINTS[self.constraints - 1],
                        current[which % len(current)],
                    ),
                )
            self.recorder.turn(self.turns, Turn(text, constraint_changes=changes), None)
            self.turns += 1
            self._deliver_late()

        @rule(batch=batches(), late=st.booleans())
        def tool_batch(self, batch: ToolBatch, late: bool) -> None:
            self.batches += 1
            calls = []
            for call in batch.calls:
                self.calls += 1
                calls.append(
                    ToolCallSpec(
                        f"call_{self.calls}",
                        call.name,
                        call.arguments,
                        call.output,
                        call.is_error,
                        call.kind,
                        int(late),
                        call.path,
                        call.validation,
                    )
                )
            held, self.late = self.late, []
            self.recorder.action(ToolBatch(f"batch_{self.batches}", tuple(calls)))
            for call in calls:
                if late:
                    self.late.append(call)
                else:
                    self.recorder.result(call, False)
            for call in held:
                self.recorder.result(call, True)

        @rule(text=st.sampled_from(words.ASSISTANT_TEXTS))
        def assistant_output(self, text: str) -> None:
            self.recorder.action(Say(text))
            self._deliver_late()

        @rule(evidence=st.integers(0, 63))
        def step_progress(self, evidence: int) -> None:
            ledger = self.recorder.ledger
            for step in self.scenario.plan.steps:
                if step.id in ledger.completed:
                    continue
                if step.id in ledger.started:
                    proof = (Digits(evidence).pick(words.EVIDENCE),)
                    self.recorder.action(CompleteStep(step.id, proof))
                else:
                    self.recorder.action(StartStep(step.id))
                break
            else:
                self.recorder.action(Say(words.ASSISTANT_TEXTS[0]))
            self._deliver_late()

        @rule()
        def compact(self) -> None:
            self.recorder.pending_calls = len(self.late)
            before = self.recorder.history(over_threshold=True)
            result = backend(before)
            self.rounds += 1
            compaction = result.state.compaction
            self.recorder.snapshots = list(compaction.snapshots)
            self.recorder.compacted_through = compaction.compacted_through_event
            self.recorder.append(result.emitted)
            check(Round(self.rounds, self.recorder.ledger.truth(), before, result))

    return CompactionRounds
