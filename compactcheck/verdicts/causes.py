"""What is one cause: a report's violations, each law that broke on a round another law of its
target also broke on (the report's ``same_cause`` links) folded into that one.

Every renderer (console, HTML, Markdown, JUnit) asks here how many causes a report shows and
which laws each names; none reads the links itself (a test reads them for that).
"""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport


@dataclass(frozen=True)
class Cause:
    """One cause of violations: the first law to show it, with its witness, and the other laws
    of the same target that broke on the same failing round."""

    number: int
    target: TargetReport
    result: InvariantResult
    example: Counterexample
    also: tuple[InvariantResult, ...] = ()

    @property
    def laws(self) -> tuple[str, ...]:
        """The id of every law that found this cause, the first one first."""
        return tuple(result.invariant for result in (self.result, *self.also))


def violations(report: Report) -> list[tuple[TargetReport, InvariantResult, Counterexample]]:
    """The violations that carry a counterexample, one for each way a law broke (its first way,
    then ``other_ways``), in report order."""
    return [
        (target, result, example)
        for target in report.targets
        for result in target.results
        if result.verdict == "violation" and result.counterexample is not None
        for example in (result.counterexample, *result.other_ways)
    ]


def causes(report: Report) -> list[Cause]:
    """The violations as one entry per cause, numbered from 1 in report order.

    A violation the report links to an earlier one of its target (``same_cause``: a provider
    rule and the law it restates, broken on the same failing round) is folded into that entry.
    """
    firsts: list[tuple[TargetReport, InvariantResult, Counterexample]] = []
    also: list[list[InvariantResult]] = []
    for target, result, example in violations(report):
        kin = next(
            (
                index
                for index, (t, first, _) in enumerate(firsts)
                if t is target and first.invariant in example.same_cause
            ),
            None,
        )
        if kin is None:
            firsts.append((target, result, example))
            also.append([])
        else:
            also[kin].append(result)
    pairs = zip(firsts, also, strict=True)
    return [
        Cause(number, target, result, example, tuple(others))
        for number, ((target, result, example), others) in enumerate(pairs, start=1)
    ]


def cause_numbers(report: Report) -> dict[int, int]:
    """The number of the cause each violation is part of, by the ``id`` of its result (a law
    broken in several ways: its first way's)."""
    numbers: dict[int, int] = {}
    for cause in causes(report):
        for result in (cause.result, *cause.also):
            numbers.setdefault(id(result), cause.number)
    return numbers


def cause_links(causes_shown: list[Cause]) -> dict[tuple[str, str, str], int]:
    """The entry each (target, view, law) cell of a results table links to: the first cause
    naming that law (a law broken in several ways links to its first way's entry)."""
    links: dict[tuple[str, str, str], int] = {}
    for cause in causes_shown:
        for law in cause.laws:
            links.setdefault((cause.target.target, cause.target.view, law), cause.number)
    return links


def folded_into(report: Report) -> dict[int, Cause]:
    """The cause each folded violation (one shown under another law's entry) belongs to, by the
    ``id`` of its result; the first law of each cause is not in it."""
    return {id(result): cause for cause in causes(report) for result in cause.also}
