"""The authoritative agent state that compaction must never rewrite."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from compactcheck.invariants.plan import TaskPlan, ValidationRecord
from compactcheck.invariants.snapshot import CompactionState
from compactcheck.invariants.wire import WireModel

RunStatus = Literal["running", "waiting_for_user", "paused", "completed", "failed"]


class PendingUserInput(WireModel):
    """A question the agent asked the user and is waiting on."""

    question: str


class ActiveSkill(WireModel):
    """A skill activated during the run."""

    name: str
    description: str = ""


class SkillState(WireModel):
    """The skills of a run, by name."""

    active_skills: dict[str, ActiveSkill] = Field(default_factory=dict)


class AgentState(WireModel):
    """The authoritative state of one run."""

    run_id: str
    task: str
    status: RunStatus = "running"
    plan: TaskPlan | None = None
    constraints: tuple[str, ...] = ()
    changed_files: tuple[str, ...] = ()
    failed_attempts: tuple[str, ...] = ()
    validations: tuple[ValidationRecord, ...] = ()
    pending_user_input: PendingUserInput | None = None
    skills: SkillState = SkillState()
    compaction: CompactionState = CompactionState()
