"""The call law: on valid input a compactor answers; a raise, a hang or a bad answer is a finding.

It is not in the catalogue of laws, because it judges a call, not a (before, after) pair: the
runner judges it on every call whose input was valid, beside the laws it judges on the answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from compactcheck.invariants import VIEWS, Facts, Finding, Invariant, View, Violation, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS

__all__ = ["CALL_ANSWERED", "call_finding", "call_law", "known_ids"]

# The id of the call law: its verdict counts calls, not compactions.
CALL_ANSWERED = "call_answered"
STATEMENT = (
    "on valid input the compactor answers: it does not raise, time out, or answer something "
    "that is not a valid answer"
)


class Call(Protocol):
    """What the call law reads of one round (the harness's RoundOutcome is one)."""

    @property
    def round(self) -> int:
        """The round (1 = first)."""
        ...

    @property
    def status(self) -> str:
        """How the call ended ("errored" for a raise, a hang or a wrong answer)."""
        ...

    @property
    def reason(self) -> str:
        """Why it errored."""
        ...

    @property
    def timed_out(self) -> bool:
        """Whether it did not answer in time."""
        ...

    @property
    def input_problems(self) -> tuple[str, ...]:
        """The provider rules its input broke (empty for input a provider accepts)."""
        ...

    @property
    def answered(self) -> bool:
        """Whether the target gave a valid answer, changed or not."""
        ...


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


def call_finding(outcome: Call) -> Finding | None:
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
