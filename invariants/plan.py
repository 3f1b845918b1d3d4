"""The task plan: steps, acceptance criteria and the validation records that back them."""

from __future__ import annotations

from typing import Literal

from compactcheck.invariants.wire import WireModel

StepStatus = Literal["pending", "in_progress", "completed", "blocked", "failed"]


class PlanStep(WireModel):
    """One step of the plan, with the evidence gathered for it."""

    id: str
    title: str = ""
    status: StepStatus
    evidence: tuple[str, ...] = ()


class AcceptanceCriterion(WireModel):
    """A condition the finished task must meet, and whether it is met yet."""

    id: str
    description: str
    satisfied: bool = False
    evidence: tuple[str, ...] = ()


class TaskPlan(WireModel):
    """The plan of a run: ordered steps and acceptance criteria."""

    steps: tuple[PlanStep, ...]
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()


class ValidationRecord(WireModel):
    """The outcome of one validation (a test run, a lint, a type check)."""

    command: str
    passed: bool
    summary: str = ""
