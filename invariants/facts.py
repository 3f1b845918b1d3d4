"""The ground truth a checker judges against: what a faithful compaction must keep."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from compactcheck.invariants.counting import counter_name
from compactcheck.invariants.plan import TaskPlan, ValidationRecord
from compactcheck.invariants.state import AgentState

# A budget counter's name (``compactcheck.invariants.counting``): messages, characters,
# approx_tokens, tokens:ENCODING or py:module:function; a function given in code is named there.
Counter = Annotated[str, BeforeValidator(counter_name)]
# How the messages laws look a fact up in a message list: by its distinctive tokens, so that a
# summary may reword it (``compactcheck.invariants.tokens``), or as the exact text it was planted
# with.
Reading = Literal["tokens", "verbatim"]


class Budget(BaseModel):
    """A size the caller declared for the compacted messages, and how to count it.

    ``counter`` is a counter's name (``compactcheck.invariants.counting.NAMES_HELP``) or a
    function of your own that takes one text and returns its size in tokens (each message's
    content and tool call arguments are counted apart and summed).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    limit: int
    counter: Counter = "approx_tokens"


class Inference(BaseModel):
    """One fact read off a history rather than declared: where, how, and how surely.

    ``certainty`` is "certain" where the history states it in a form that names a rule (a
    "Constraints:" label, "Never ...", "Please don't ...", "Make sure to ...", a system prompt's
    list), "unsure" where the reading guesses ("Also: ...", a numbered list no label names).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: Literal["goal", "constraints", "must_keep"]
    text: str
    certainty: Literal["certain", "unsure"] = "certain"
    message: int | None = None
    """The index of the history's message it was read from."""
    source: str = ""
    """How it was read, for a reader: "user message 2, after 'Also:'"."""


class Facts(BaseModel):
    """The facts of a run at the moment it is compacted.

    ``constraints`` are the current values; ``superseded_constraints`` are values that an
    update replaced and that must no longer be asserted. ``must_keep`` lists identifiers (changed
    file paths, pending step ids, ...) that must appear verbatim in a compacted message list.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: str
    constraints: tuple[str, ...] = ()
    superseded_constraints: tuple[str, ...] = ()
    plan: TaskPlan | None = None
    changed_files: tuple[str, ...] = ()
    failed_attempts: tuple[str, ...] = ()
    validations: tuple[ValidationRecord, ...] = ()
    active_skills: tuple[str, ...] = ()
    pending_question: str | None = None
    must_keep: tuple[str, ...] = ()
    budget: Budget | None = None
    inferred: tuple[str, ...] = ()
    """The fields read off the history (``compactcheck.invariants.inference``) rather than
    declared."""
    inferences: tuple[Inference, ...] = ()
    """Each fact of the inferred fields, where it was read and how surely."""
    reading: Reading = "tokens"
    """How goal, constraints and must-keep facts are looked up in the output (see ``Reading``)."""

    @property
    def pending_step_ids(self) -> tuple[str, ...]:
        """Plan steps that are not completed."""
        if self.plan is None:
            return ()
        return tuple(step.id for step in self.plan.steps if step.status != "completed")

    @classmethod
    def of_state(cls, state: AgentState, superseded: tuple[str, ...] = ()) -> Facts:
        """The facts an authoritative state asserts (it cannot know superseded values itself)."""
        question = state.pending_user_input.question if state.pending_user_input else None
        return cls(
            goal=state.task,
            constraints=state.constraints,
            superseded_constraints=superseded,
            plan=state.plan,
            changed_files=state.changed_files,
            failed_attempts=state.failed_attempts,
            validations=state.validations,
            active_skills=tuple(state.skills.active_skills),
            pending_question=question,
        )
