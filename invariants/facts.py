"""The ground truth a checker judges against: what a faithful compaction must keep."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from invariants.plan import TaskPlan, ValidationRecord

Counter = Literal["messages", "characters", "approx_tokens"]


class Budget(BaseModel):
    """A size the caller declared for the compacted messages, and how to count it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    limit: int
    counter: Counter = "approx_tokens"


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

    @property
    def pending_step_ids(self) -> tuple[str, ...]:
        """Plan steps that are not completed."""
        if self.plan is None:
            return ()
        return tuple(step.id for step in self.plan.steps if step.status != "completed")
