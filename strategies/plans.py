"""The plan a scenario draws: steps and their final statuses, acceptance criteria, validations.

The plan's models are validated once each and then shared: a model is frozen, and the few values
a run draws for them (a step's index, status and evidence; the criteria's count, rotation and
satisfied bits; a validation's command, verdict and summary) make a few hundred in all.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from compactcheck.invariants import AcceptanceCriterion, PlanStep, StepStatus, ValidationRecord
from compactcheck.strategies import vocabulary as words

STATUSES: Final[tuple[StepStatus, ...]] = (
    "pending",
    "in_progress",
    "completed",
    "blocked",
    "failed",
)
# How a step's status is drawn: half of the steps end completed, so that most plans have
# completed work whose evidence a snapshot must cite (and a stale citation can show); the first
# entry is still "pending", where a shrunk step goes.
STATUS_DIGITS: Final[tuple[StepStatus, ...]] = (
    "pending",
    "completed",
    "in_progress",
    "completed",
    "blocked",
    "completed",
    "failed",
    "completed",
)
# Most plans state acceptance criteria (a run without any shrinks to none).
CRITERIA_COUNTS: Final = (0, 1, 1, 2, 2, 3, 3, 3)
MAX_STEPS: Final = 4


@lru_cache(maxsize=1024)
def criteria(count: int, rotation: int, satisfied: int) -> tuple[AcceptanceCriterion, ...]:
    """The first ``count`` acceptance criteria from ``rotation``, ``satisfied`` one bit each."""
    return tuple(
        AcceptanceCriterion(
            id=f"ac{index + 1}",
            description=words.CRITERIA[(rotation + index) % len(words.CRITERIA)],
            satisfied=bool(satisfied >> index & 1),
            evidence=(words.EVIDENCE[index],) if satisfied >> index & 1 else (),
        )
        for index in range(count)
    )


@lru_cache(maxsize=1024)
def step(index: int, status: StepStatus, evidence: tuple[str, ...]) -> PlanStep:
    """Plan step ``index`` (0-based) with its final status and evidence."""
    title = words.STEP_TITLES[index % len(words.STEP_TITLES)]
    return PlanStep(id=f"s{index + 1}", title=title, status=status, evidence=evidence)


@lru_cache(maxsize=256)
def validation(command: str, passed: bool, summary: str) -> ValidationRecord:
    """The record of one validation run."""
    return ValidationRecord(command=command, passed=passed, summary=summary)
