"""The way a law was broken: the ``kind`` its law gave the violation where it decided it.

Two violations of one law of one kind are one way, whatever fact, index or wording they name;
two of different kinds (a system message demoted, a constraint dropped, a superseded one
reasserted) are two, and each keeps its own witness, as Hypothesis keeps one per distinct
failure of one test. The kind is set by the law's code, never read off its sentence, so a
witness keeps its way while it shrinks. A law that names no kinds breaks in one way ("").
"""

from __future__ import annotations

from collections.abc import Iterable

from compactcheck.invariants.verdict import Finding, Violation

MAX_WAYS = 4
"""The most distinct ways of one law a run keeps a witness for (the others are counted)."""


def way_of(violation: Violation) -> str:
    """The way a violation broke its law: the kind its law gave it ("" for a law of one way)."""
    return violation.kind


def rank(declared: tuple[str, ...], way: str) -> tuple[int, str]:
    """Where a way stands among its law's ways (``Invariant.ways``, ``declared``): the order the
    law declares them in, any it does not declare after those, by name. A run keeps and reports
    a law's ways in this order, so that which one it met first (a corpus entry replayed sooner,
    a shard that ran faster) changes neither its first witness nor its report."""
    return (declared.index(way), "") if way in declared else (len(declared), way)


def in_order(declared: tuple[str, ...], met: Iterable[str]) -> list[str]:
    """The ways ``met``, in their law's order (``rank``)."""
    return sorted(met, key=lambda way: rank(declared, way))


def ways(finding: Finding) -> dict[str, Finding]:
    """A failing finding once for each distinct way it holds, that way's violation first (the
    one a witness shows), in the order the law found them."""
    split: dict[str, Finding] = {}
    for violation in finding.violations:
        way = way_of(violation)
        if way not in split:
            split[way] = _first(finding, violation)
    return split


def _first(finding: Finding, violation: Violation) -> Finding:
    rest = tuple(v for v in finding.violations if v is not violation)
    return Finding(finding.invariant, finding.exercised, (violation, *rest), finding.review)
