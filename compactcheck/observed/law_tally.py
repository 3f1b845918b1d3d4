"""One law's tally over recorded compactions, as ``audit`` and the audits of traces keep it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from compactcheck.invariants import Finding, Invariant, Violation
from compactcheck.invariants.levels import level_of
from compactcheck.report.model import MAX_REVIEW_ITEMS, Counterexample, InvariantResult
from compactcheck.verdicts.counts import Counts, Reviewed, ReviewKept, recorded_result, review_items


@dataclass
class LawTally:
    """How often a law was exercised and broken, its first counterexample, its review items."""

    law: Invariant[Any, Any]
    exercised: int = 0
    violations: int = 0
    first: Counterexample | None = None
    # Items for review met on the pairs (the first few distinct ones kept: a log may hold
    # millions), each distinct one counted once.
    review: ReviewKept = field(default_factory=lambda: ReviewKept(MAX_REVIEW_ITEMS))

    def add(self, finding: Finding, first: Callable[[Violation], Counterexample]) -> None:
        """Count one finding of the law; ``first`` makes the counterexample of its first break."""
        if finding.exercised:
            self.exercised += 1
        self.review.add(review_items(finding, 1))
        if finding.violations:
            self.violations += 1
            if self.first is None:
                self.first = first(finding.violations[0])

    def result(self, counts: Counts, formats: Iterable[str]) -> InvariantResult:
        """The law's result; a record of several formats holds it to its strictest placement."""
        made = recorded_result(
            self.law.id,
            self.law.statement,
            counts,
            first=self.first,
            violations=self.violations,
            requires_budget=self.law.requires_budget,
            review=Reviewed.of(self.review.items, self.review.count),
        )
        scoped = bool(self.law.formats)
        level = min(
            (level_of(self.law.id, scoped, f) for f in formats),
            default=level_of(self.law.id, scoped),
        )
        return made.model_copy(update={"level": level})


__all__ = ["LawTally"]
