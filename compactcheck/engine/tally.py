"""What the calls of one target on one view did: counts by status, kinds of failure."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compactcheck.invariants import Finding
from compactcheck.verdicts.counts import (
    MIN_COMPACTIONS,
    WRONG_ANSWERS,
    Calls,
    Counts,
    failure_kind,
    rarely_compacted,
    vacuity_line,
)

if TYPE_CHECKING:
    from compactcheck.harness import RoundOutcome


@dataclass
class Failure:
    """A round that broke a law, the law's finding on it, and the size of its history."""

    outcome: RoundOutcome
    finding: Finding
    size: int


@dataclass
class Tally:
    """What the calls of one target on one view did, and how often each law was exercised."""

    examples: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    exercised: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    # Why errored calls failed, one entry per kind of failure (see failure_kind).
    failures: Counter[str] = field(default_factory=Counter)
    # Calls that errored on input that broke a provider rule (not a finding; see crash.py).
    malformed_errors: int = 0

    def count(self, outcome: RoundOutcome) -> None:
        """Count one round's call."""
        self.statuses[outcome.status] += 1
        if outcome.timed_out:
            self.statuses["timed out"] += 1
        if outcome.reason:
            self.reasons[outcome.reason] += 1
        if outcome.wrong_answer:
            self.statuses[WRONG_ANSWERS] += 1
        if outcome.status == "errored":
            self.failures[failure_kind(outcome.reason)] += 1
            if outcome.input_problems:
                self.malformed_errors += 1

    @property
    def compactions(self) -> int:
        """Calls whose answer changed the history."""
        return self.statuses["compacted"]

    @property
    def answered(self) -> int:
        """Calls that got a valid answer, changed or not."""
        return self.statuses["compacted"] + self.statuses["unchanged"]

    @property
    def declined(self) -> int:
        """Calls the target declined, or that the view declined for it."""
        return self.statuses["declined"] + self.statuses["skipped"]

    def counts(self, law: str) -> Counts:
        """One law's counts, as the verdict policy reads them."""
        return Counts(
            examples=self.examples,
            exercised=self.exercised[law],
            compactions=self.compactions,
            unchanged=self.statuses["unchanged"],
            errored=self.statuses["errored"],
            skipped=self.declined,
        )

    def calls(self) -> Calls:
        """How the calls ended, as the verdict policy reads them."""
        common_reason = self.reasons.most_common(1)[0][0] if self.reasons else ""
        return Calls(self.statuses, common_reason, self.malformed_errors)

    def rarely_compacted(self, floor: int = MIN_COMPACTIONS) -> bool:
        """Whether the target changed the history in none or almost none of its answered calls."""
        return rarely_compacted(self.compactions, self.answered, floor)

    def vacuity(self) -> str:
        """Why a target that (almost) never compacted gets no pass, and what to do about it."""
        return vacuity_line(
            self.compactions, self.statuses["unchanged"], self.declined, self.examples
        )
