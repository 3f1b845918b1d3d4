"""The vocabulary of a run's turns: constraints, tool calls, the agent's actions, the turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from compactcheck.invariants import ValidationRecord

ToolKind = Literal["read", "edit", "validate"]


@dataclass(frozen=True)
class Constraint:
    """A constraint on the run; ``supersedes`` names the id of the constraint it replaces."""

    id: str
    text: str
    supersedes: str | None = None


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call and its result; ``delay`` counts the actions of its turn before it arrives.

    A call of the trailing pending batch has no result yet; its ``delay`` is ignored.
    """

    call_id: str
    name: str
    arguments: str
    output: str
    is_error: bool
    kind: ToolKind = "read"
    delay: int = 0
    path: str | None = None
    validation: ValidationRecord | None = None

    def identified(self, call_id: str, delay: int) -> ToolCallSpec:
        """This call with its id and final delay.

        The fields copied as they are, without the frozen dataclass's ``__init__`` (a setattr
        per field, about four times the cost): a case hands out ids to a hundred calls.
        """
        twin = object.__new__(ToolCallSpec)
        fields = twin.__dict__
        fields.update(self.__dict__)
        fields["call_id"] = call_id
        fields["delay"] = delay
        return twin

    @property
    def edited_path(self) -> str | None:
        """The file this call changed: an edit that succeeded."""
        return self.path if self.kind == "edit" and not self.is_error else None

    @property
    def recorded_validation(self) -> ValidationRecord | None:
        """The validation this call recorded: a validation run that did not error."""
        return self.validation if self.kind == "validate" and not self.is_error else None


@dataclass(frozen=True)
class Say:
    """The assistant writes text."""

    text: str

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.say(self.text)


@dataclass(frozen=True)
class ToolBatch:
    """The assistant calls one tool, or several in parallel."""

    batch_id: str
    calls: tuple[ToolCallSpec, ...]

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.tool_batch(self)


@dataclass(frozen=True)
class StartStep:
    """The agent starts a plan step."""

    step_id: str

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.start_step(self.step_id)


@dataclass(frozen=True)
class CompleteStep:
    """The agent completes a plan step, with evidence."""

    step_id: str
    evidence: tuple[str, ...]

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.complete_step(self.step_id, self.evidence)


@dataclass(frozen=True)
class FailAttempt:
    """An approach the agent tried and abandoned."""

    text: str

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.fail_attempt(self.text)


@dataclass(frozen=True)
class ActivateSkill:
    """The agent activates a skill."""

    name: str
    description: str

    def tell(self, visitor: Visitor) -> None:
        """Hand the action to the visitor's hook for it."""
        visitor.activate_skill(self.name, self.description)


Action = Say | ToolBatch | StartStep | CompleteStep | FailAttempt | ActivateSkill


@dataclass(frozen=True)
class Turn:
    """One user turn and the agent's actions up to the next one.

    ``compacted_before`` places an earlier compaction right before the turn, ``restarted_before``
    a process restart (a new lifecycle); ``question`` is asked at the end of the turn and answered
    by the next turn's ``answer`` (the last turn's question stays pending).
    """

    user_text: str
    actions: tuple[Action, ...] = ()
    constraint_changes: tuple[Constraint, ...] = ()
    question: str | None = None
    answer: str | None = None
    compacted_before: bool = False
    restarted_before: bool = False


class Visitor:
    """Receives a run's happenings in order; each view of a scenario is one visitor."""

    def restart(self, stale_lock: bool) -> None:
        """A new process lifecycle begins (after a crash mid-compaction when ``stale_lock``)."""

    def compaction(self) -> None:
        """An earlier compaction folds everything so far."""

    def turn(self, index: int, turn: Turn, answered: str | None) -> None:
        """A user turn begins; ``answered`` is the question its answer resolves."""

    def action(self, action: Action) -> None:
        """The agent acts; each kind of action goes to its own hook below."""
        action.tell(self)

    def say(self, text: str) -> None:
        """The assistant writes text."""

    def tool_batch(self, batch: ToolBatch) -> None:
        """The assistant makes a batch's calls."""

    def start_step(self, step_id: str) -> None:
        """The agent starts a plan step."""

    def complete_step(self, step_id: str, evidence: tuple[str, ...]) -> None:
        """The agent completes a plan step, with evidence."""

    def fail_attempt(self, text: str) -> None:
        """The agent abandons an approach."""

    def activate_skill(self, name: str, description: str) -> None:
        """The agent activates a skill."""

    def result(self, call: ToolCallSpec, late: bool) -> None:
        """A tool result arrives; ``late`` when other actions came between call and result."""

    def question(self, question: str) -> None:
        """The agent asks the user a question."""

    def pending(self, batch: ToolBatch) -> None:
        """The trailing batch: calls are made, results have not arrived."""

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        """The turn is over (the last one stays open while a batch is pending)."""
