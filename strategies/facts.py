"""The facts a checker judges against, read off a scenario's ground truth."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.strategies.scenario_model import GroundTruth


def facts_of_truth(truth: GroundTruth) -> Facts:
    """The facts of a scenario's ground truth (goal, current and superseded constraints, ...)."""
    return Facts(
        goal=truth.goal,
        constraints=truth.constraints,
        superseded_constraints=truth.superseded_constraints,
        plan=truth.plan,
        changed_files=truth.changed_files,
        failed_attempts=truth.failed_attempts,
        validations=truth.validations,
        active_skills=tuple(truth.active_skills),
        pending_question=truth.pending_question,
    )
