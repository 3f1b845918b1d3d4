"""The call law: on valid input a compactor answers; a raise, a hang or a bad answer is a finding.

It is not in the catalogue of laws, because it judges a call, not a (before, after) pair: the
runner judges it on every call whose input was valid, beside the laws it judges on the answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from compactcheck.invariants import VIEWS, Facts, Finding, Invariant, View, Violation, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.report.model import CALL_ANSWERED

if TYPE_CHECKING:
    # Only a type here: the harness package loads Hypothesis, which judging a pair never needs.
    from compactcheck.harness import RoundOutcome

__all__ = ["CALL_ANSWERED", "call_finding", "call_law", "known_ids"]
STATEMENT = (
    "on valid input the compactor answers: it does not raise, time out, or answer something "
    "that is not a valid answer"
)


def _judged_by_the_runner(before: Any, after: Any, facts: Facts) -> Finding:
    del before, after, facts
    raise TypeError(f"{CALL_ANSWERED} judges a call, not a (before, after) pair: see call_finding")


def known_ids(views: Iterable[View] | None = None) -> set[str]:
    """The invariant ids a run judges on ``views`` (every view when None), the call law's too."""
    chosen = VIEWS if views is None else tuple(views)
    return {law.id for view in chosen for law in catalogue(view, ALL_FORMATS)} | {CALL_ANSWERED}


def call_law(view: View) -> Invariant:
    """The call law of one view, in the shape of the catalogue's laws."""
    return Invariant(CALL_ANSWERED, view, STATEMENT, _judged_by_the_runner, requires_change=False)


def call_finding(outcome: RoundOutcome) -> Finding | None:
    """The call law on one round; None where it could not fail (declined, or invalid input).

    A call on input that breaks a provider's rules (asked for with --malformed, or the target's
    own broken answer carried into the next round) may fail without blame: rejecting such input
    is a fair answer.
    """
    if outcome.answered:
        return Finding(CALL_ANSWERED, True)
    if outcome.status != "errored" or outcome.input_problems:
        return None
    kind = "did not answer in time" if outcome.timed_out else "failed"
    violation = Violation(
        CALL_ANSWERED,
        f"the call {kind} on valid input in round {outcome.round}: {outcome.reason}",
        (outcome.reason,),
    )
    return Finding(CALL_ANSWERED, True, (violation,))
