"""The scenario model: one agent run, the visitor that walks it, and the ledger of its truth."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from compactcheck.invariants import (
    AcceptanceCriterion,
    PlanStep,
    StepStatus,
    TaskPlan,
    ValidationRecord,
)
from compactcheck.strategies.turns import (
    Constraint,
    ToolBatch,
    ToolCallSpec,
    Turn,
    Visitor,
)


@dataclass(frozen=True)
class Scenario:
    """One agent run: goal, constraints, plan, turns, and what happens at the end.

    ``plan`` holds each step's final status; ``pending_batch`` is a trailing tool batch whose
    results have not arrived; ``stale_lock`` says a compaction was cut off by the last restart.
    """

    run_id: str
    goal: str
    constraints: tuple[Constraint, ...]
    plan: TaskPlan
    turns: tuple[Turn, ...]
    pending_batch: ToolBatch | None = None
    stale_lock: bool = False
    over_threshold: bool = True

    @cached_property
    def truth(self) -> GroundTruth:
        """What a faithful compaction of the whole run must keep."""
        ledger = Ledger(self)
        walk(self, ledger)
        return ledger.truth()

    def prefix(self, turns: int) -> Scenario:
        """The run as it stood after its first ``turns`` turns (itself for all of them).

        A prefix ends before the trailing pending batch, which only the whole run has.
        """
        if turns == len(self.turns):
            return self
        return replace(self, turns=self.turns[:turns], pending_batch=None)

    def batches(self) -> Iterator[ToolBatch]:
        """Every tool batch, in order, the pending one last."""
        for turn in self.turns:
            for action in turn.actions:
                if isinstance(action, ToolBatch):
                    yield action
        if self.pending_batch is not None:
            yield self.pending_batch

    def event_count_estimate(self) -> int:
        """A cheap size measure: the number of actions, calls and turns."""
        return sum(
            1 + len(turn.actions) + len(turn.constraint_changes) for turn in self.turns
        ) + sum(len(batch.calls) for batch in self.batches())


@dataclass(frozen=True)
class GroundTruth:
    """The facts of a run at one point: what compaction must keep, and what it must not assert."""

    goal: str
    constraints: tuple[str, ...]
    superseded_constraints: tuple[str, ...]
    plan: TaskPlan
    changed_files: tuple[str, ...]
    failed_attempts: tuple[str, ...]
    validations: tuple[ValidationRecord, ...]
    active_skills: dict[str, str]
    pending_question: str | None
    answered_questions: tuple[str, ...]
    completed_call_ids: tuple[str, ...]
    pending_call_ids: tuple[str, ...]
    late_call_ids: tuple[str, ...]

    @property
    def acceptance_criteria(self) -> tuple[AcceptanceCriterion, ...]:
        """The plan's acceptance criteria."""
        return self.plan.acceptance_criteria

    @property
    def pending_step_ids(self) -> tuple[str, ...]:
        """Steps that are not completed."""
        return tuple(step.id for step in self.plan.steps if step.status != "completed")


def walk(scenario: Scenario, *visitors: Visitor) -> None:
    """Drive visitors through a scenario: the one place that decides when results arrive."""
    previous_question: str | None = None
    last = len(scenario.turns) - 1
    for index, turn in enumerate(scenario.turns):
        if turn.restarted_before:
            for visitor in visitors:
                visitor.restart(scenario.stale_lock)
        if turn.compacted_before:
            for visitor in visitors:
                visitor.compaction()
        answered = previous_question if turn.answer is not None else None
        for visitor in visitors:
            visitor.turn(index, turn, answered)
        due: dict[int, list[tuple[ToolCallSpec, bool]]] = {}
        for position, action in enumerate(turn.actions):
            for visitor in visitors:
                visitor.action(action)
            if isinstance(action, ToolBatch):
                for call in action.calls:
                    due.setdefault(position + call.delay, []).append((call, call.delay > 0))
            for call, late in due.pop(position, ()):
                for visitor in visitors:
                    visitor.result(call, late)
        # A delay past the turn's end (only a hand-built scenario has one) lands at its end.
        for position in sorted(due):
            for call, late in due[position]:
                for visitor in visitors:
                    visitor.result(call, late)
        if turn.question is not None:
            for visitor in visitors:
                visitor.question(turn.question)
        previous_question = turn.question
        if index == last and scenario.pending_batch is not None:
            for visitor in visitors:
                visitor.pending(scenario.pending_batch)
        for visitor in visitors:
            visitor.turn_end(index, turn, index == last)


@dataclass
class Ledger(Visitor):
    """Keeps the facts of a run up to date as it is walked (the checker's ground truth)."""

    scenario: Scenario
    constraints: dict[str, Constraint] = field(default_factory=dict)
    superseded: dict[str, None] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)
    completed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    changed_files: dict[str, None] = field(default_factory=dict)
    failed_attempts: dict[str, None] = field(default_factory=dict)
    validations: list[ValidationRecord] = field(default_factory=list)
    skills: dict[str, str] = field(default_factory=dict)
    pending_question: str | None = None
    answered: list[str] = field(default_factory=list)
    completed_calls: list[str] = field(default_factory=list)
    pending_calls: list[str] = field(default_factory=list)
    late_calls: list[str] = field(default_factory=list)
    finished: bool = False

    def change_constraint(self, constraint: Constraint) -> None:
        """Add a constraint, dropping the one it supersedes."""
        if constraint.supersedes is not None:
            replaced = self.constraints.pop(constraint.supersedes, None)
            if replaced is not None:
                self.superseded[replaced.text] = None
        self.constraints[constraint.id] = constraint
        self.texts[constraint.id] = constraint.text

    def superseded_text(self, constraint_id: str) -> str:
        """The text of a constraint by id, current or superseded."""
        return self.texts.get(constraint_id, "")

    def turn(self, index: int, turn: Turn, answered: str | None) -> None:
        if index == 0:
            for constraint in self.scenario.constraints:
                self.change_constraint(constraint)
        for constraint in turn.constraint_changes:
            self.change_constraint(constraint)
        if answered is not None:
            self.answered.append(answered)
            self.pending_question = None

    def start_step(self, step_id: str) -> None:
        self.started.add(step_id)

    def complete_step(self, step_id: str, evidence: tuple[str, ...]) -> None:
        self.completed[step_id] = evidence

    def fail_attempt(self, text: str) -> None:
        self.failed_attempts[text] = None

    def activate_skill(self, name: str, description: str) -> None:
        self.skills[name] = description

    def result(self, call: ToolCallSpec, late: bool) -> None:
        self.completed_calls.append(call.call_id)
        if late:
            self.late_calls.append(call.call_id)
        if call.edited_path is not None:
            self.changed_files[call.edited_path] = None
        if call.recorded_validation is not None:
            self.validations.append(call.recorded_validation)

    def question(self, question: str) -> None:
        self.pending_question = question

    def pending(self, batch: ToolBatch) -> None:
        self.pending_calls.extend(call.call_id for call in batch.calls)

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        self.finished = last

    def plan_now(self) -> TaskPlan:
        """The plan as it stands: final statuses once the run is over, else what is known."""
        plan = self.scenario.plan
        if self.finished:
            return plan
        steps = []
        for step in plan.steps:
            status: StepStatus = "pending"
            evidence: tuple[str, ...] = ()
            if step.id in self.completed:
                status, evidence = "completed", self.completed[step.id]
            elif step.id in self.started:
                status = "in_progress"
            steps.append(PlanStep(id=step.id, title=step.title, status=status, evidence=evidence))
        return TaskPlan(steps=tuple(steps), acceptance_criteria=plan.acceptance_criteria)

    def truth(self) -> GroundTruth:
        """The facts as they stand now."""
        return GroundTruth(
            goal=self.scenario.goal,
            constraints=tuple(constraint.text for constraint in self.constraints.values()),
            superseded_constraints=tuple(self.superseded),
            plan=self.plan_now(),
            changed_files=tuple(self.changed_files),
            failed_attempts=tuple(self.failed_attempts),
            validations=tuple(self.validations),
            active_skills=dict(self.skills),
            pending_question=self.pending_question,
            answered_questions=tuple(self.answered),
            completed_call_ids=tuple(self.completed_calls),
            pending_call_ids=tuple(self.pending_calls),
            late_call_ids=tuple(self.late_calls),
        )
