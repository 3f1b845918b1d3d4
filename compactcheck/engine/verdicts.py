"""The verdict policy of a run: what the counts of one target on one view let it say of a law.

A pass is earned: only rounds where the law could have failed count toward it, a target that
(almost) never compacted gets no pass, and a target none of whose calls answered is errored,
not judged.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from compactcheck.base.call_law import CALL_ANSWERED as CALL_ANSWERED
from compactcheck.harness import RoundOutcome
from compactcheck.invariants import Finding, Invariant
from compactcheck.report.model import MIN_COMPACTED_PERCENT, VACUITY_PREFIX, Verdict


def rarely_compacted(compactions: int, answered: int) -> bool:
    """Whether a target changed the history in none or almost none of its answered calls.

    Fewer than max(3, MIN_COMPACTED_PERCENT %) of the answered calls: a pass would rest on a
    handful of compactions.
    """
    return compactions < max(3, -(-answered * MIN_COMPACTED_PERCENT // 100))


def answered_verdict(
    invariant: str,
    *,
    compactions: int,
    unchanged: int,
    exercised: int,
    examples: int,
    declined: int,
    errored: int = 0,
) -> tuple[Verdict, str] | None:
    """The verdict of a law no call broke, from the counts of answered calls; None if none answered.

    The one policy of a run and of a merge of shards: the call law passes on any answer; no other
    law passes when the target (almost) never compacted, or when no call could have broken it.
    A pass beside calls that errored says that it was judged on the answers alone.
    """
    answered = compactions + unchanged
    if answered == 0:
        return None
    if invariant == CALL_ANSWERED:
        return "pass", f"answered all {exercised} calls on valid input"
    if rarely_compacted(compactions, answered):
        return "unknown", vacuity_line(compactions, unchanged, declined, examples)
    if exercised == 0:
        return "unknown", (
            f"held on {compactions} compactions in {examples} histories, none of which could "
            "have broken it"
        )
    because = f"held on {compactions} compactions; {exercised} exercised it"
    if errored:
        because += f"; {errored} call(s) errored and were not judged (see {CALL_ANSWERED})"
    return "pass", because


def vacuity_line(compactions: int, unchanged: int, declined: int, examples: int) -> str:
    """Why a target that (almost) never compacted gets no pass, and what to do about it."""
    answered = compactions + unchanged
    return (
        f"{VACUITY_PREFIX}the target changed the history in {compactions} of {answered} answered "
        f"calls ({unchanged} handed it back unchanged, {declined} declined) over {examples} "
        f"histories, so the laws had almost nothing to judge (at least {MIN_COMPACTED_PERCENT} % "
        "must compact); make it compact: lower its trigger or size setting, declare a budget it "
        "must meet (--budget N), or give it longer histories (--rounds)"
    )


# The tally's count of calls that answered what their view does not take (Answer.wrong_answer);
# not a status of the report's calls, which counts them as errored.
WRONG_ANSWERS = "wrong answers"

# Only the first this many kinds of failure are kept in a report: a compactor that fails in a new
# way on every call would otherwise fill it.
MAX_FAILURE_KINDS = 10
_SEQ = re.compile(r"\bseq \d+")


def failure_kind(reason: str) -> str:
    """A failed call's reason as a kind of failure: its first line, the request's seq masked.

    Two hangs, or two exits with the same code, differ only in the seq of the call they broke.
    """
    first = reason.strip().split("\n", 1)[0] or "no reason given"
    return _SEQ.sub("seq N", first)[:300]


def top_failures(failures: Counter[str]) -> dict[str, int]:
    """The most common kinds of failure, at most MAX_FAILURE_KINDS."""
    return dict(failures.most_common(MAX_FAILURE_KINDS))


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

    def rarely_compacted(self) -> bool:
        """Whether the target changed the history in none or almost none of its answered calls."""
        return rarely_compacted(self.compactions, self.answered)

    def vacuity(self) -> str:
        """Why a target that (almost) never compacted gets no pass, and what to do about it."""
        return vacuity_line(
            self.compactions, self.statuses["unchanged"], self.declined, self.examples
        )


def quiet_verdict(
    law: Invariant, tally: Tally, min_exercised: int, cap: int
) -> tuple[Verdict, str]:
    """The verdict of a law nothing broke (an applicable one: a budget law has its budget)."""
    exercised = tally.exercised[law.id]
    judged = answered_verdict(
        law.id,
        compactions=tally.compactions,
        unchanged=tally.statuses["unchanged"],
        exercised=exercised,
        examples=tally.examples,
        declined=tally.declined,
        errored=tally.statuses["errored"],
    )
    if judged is None:
        return unanswered_verdict(tally)
    verdict, because = judged
    if law.id == CALL_ANSWERED and tally.malformed_errors:
        because += (
            f"; {tally.malformed_errors} call(s) on input that breaks a provider rule "
            "errored, which is not held against it"
        )
    elif verdict == "pass" and law.id != CALL_ANSWERED and exercised < min_exercised:
        because += f" (fewer than the {min_exercised} wanted, within the cap of {cap} histories)"
    return verdict, because


def unanswered_verdict(tally: Tally) -> tuple[Verdict, str]:
    """Why nothing could be judged when no call answered."""
    statuses = tally.statuses
    common_reason = tally.reasons.most_common(1)[0][0] if tally.reasons else ""
    if statuses["timed out"] and statuses["timed out"] == statuses["errored"]:
        return "unknown", f"every call timed out: {common_reason}"
    if statuses[WRONG_ANSWERS] and statuses[WRONG_ANSWERS] == statuses["errored"]:
        # Said once, by the call law's violation: what the target answered is not what the
        # view takes.
        return "errored", f"not judged: no call answered what the view takes (see {CALL_ANSWERED})"
    if statuses["errored"] and not statuses["skipped"]:
        return "errored", f"every compaction errored: {common_reason}"
    if statuses["skipped"] and not statuses["errored"]:
        return "skipped", f"the target declined every history: {common_reason}"
    return "unknown", (
        f"no compaction could be judged in {tally.examples} histories "
        f"({dict(statuses)}): {common_reason}"
    )
