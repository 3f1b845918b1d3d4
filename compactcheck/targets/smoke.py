"""Smoke: one small, fixed history through one view of a target, to see the wiring works."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import find, settings

from compactcheck.harness import Case, RoundOutcome, cases
from compactcheck.invariants import View

if TYPE_CHECKING:
    # Only a type here: the registry builds the reference targets, which the harness never runs.
    from compactcheck.targets.registry import Target


def smoke_case(view: View | None = None) -> Case:
    """The same small history every time: two turns with a tool call, one round."""
    return find(
        cases(1, view),
        lambda case: len(case.scenario.turns) >= 2 and any(True for _ in case.scenario.batches()),
        settings=settings(database=None, derandomize=True, max_examples=500),
    )


def smoke_round(target: Target, view: View) -> RoundOutcome:
    """Run the smoke history through one view of a target; the first round's outcome."""
    outcomes = target.drivers[view]().run(smoke_case(view))
    return outcomes[0]
