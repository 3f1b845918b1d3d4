"""Reports side by side: a target x invariant matrix over several runs, regressions between two."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from compactcheck.report.model import VERDICTS, InvariantResult, Report, Verdict
from compactcheck.report.untrusted import safe_line

Row = tuple[str, str]
"""A target and the view it was run through."""

Key = tuple[str, str, str]
"""A target, a view and an invariant."""


@dataclass(frozen=True)
class Cell:
    """One verdict of the matrix and the report (0-based, in argument order) it came from."""

    result: InvariantResult
    report: int


@dataclass(frozen=True)
class Summary:
    """Target x invariant verdicts across reports; rows and invariants in first-seen order."""

    rows: tuple[Row, ...]
    invariants: tuple[str, ...]
    cells: Mapping[Key, Cell] = field(repr=False)

    def cell(self, row: Row, invariant: str) -> Cell | None:
        """The verdict of one invariant on one target and view, if it was run."""
        return self.cells.get((row[0], row[1], invariant))

    def counts(self) -> dict[Verdict, int]:
        """How many cells hold each verdict."""
        counts = dict.fromkeys(VERDICTS, 0)
        for cell in self.cells.values():
            counts[cell.result.verdict] += 1
        return counts


def summary(reports: Sequence[Report]) -> Summary:
    """The matrix of several reports; a later report wins per target, view and invariant."""
    rows: dict[Row, None] = {}
    invariants: dict[str, None] = {}
    cells: dict[Key, Cell] = {}
    for index, report in enumerate(reports):
        for target in report.targets:
            rows.setdefault((target.target, target.view))
            for result in target.results:
                invariants.setdefault(result.invariant)
                cells[(target.target, target.view, result.invariant)] = Cell(result, index)
    return Summary(tuple(rows), tuple(invariants), cells)


RegressionKind = Literal["worse", "new_violation", "disappeared", "vacuous"]


@dataclass(frozen=True)
class Regression:
    """One way the new report is worse than the old one for a target, view and invariant."""

    target: str
    view: str
    invariant: str
    kind: RegressionKind
    old: InvariantResult | None
    new: InvariantResult | None

    def describe(self) -> str:
        """One line for a terminal or a log, with the backend's text made harmless."""
        target = f"{safe_line(self.target, 200)} [{safe_line(self.view, 40)}]"
        where = f"{safe_line(self.invariant, 120)} on {target}"
        reason = self.new.because if self.new is not None else None
        because = f": {safe_line(reason, 300)}" if reason else ""
        if self.kind == "disappeared":
            assert self.old is not None
            return f"{where}: was {self.old.verdict}, missing from the new report"
        assert self.new is not None
        if self.kind == "vacuous":
            return (
                f"{where}: still passes but no longer exercised (0 of {self.new.examples} examples)"
            )
        old = self.old.verdict if self.old is not None else "not run"
        if self.kind == "new_violation":
            round_ = self.new.counterexample.round if self.new.counterexample else None
            at = f" in round {round_}" if round_ is not None else ""
            return f"{where}: new violation{at} (was {old}){because}"
        return f"{where}: {old} -> {self.new.verdict}{because}"


def diff(old: Report, new: Report) -> list[Regression]:
    """Regressions from `old` to `new`: new violations, passes that got worse, invariants gone."""
    before = summary([old]).cells
    after = summary([new]).cells
    regressions: list[Regression] = []
    for key, cell in after.items():
        then = before.get(key)
        now = cell.result
        was = then.result if then is not None else None
        kind: RegressionKind | None = None
        if now.verdict == "violation" and (was is None or was.verdict != "violation"):
            kind = "new_violation"
        elif was is not None and was.verdict == "pass" and now.verdict != "pass":
            kind = "worse"
        elif (
            was is not None
            and was.verdict == now.verdict == "pass"
            and was.exercised > 0
            and now.exercised == 0
        ):
            # A pass that exercised nothing is vacuous: the compactor was never put to the test.
            kind = "vacuous"
        if kind is not None:
            regressions.append(Regression(*key, kind=kind, old=was, new=now))
    for key, cell in before.items():
        if key not in after:
            regressions.append(Regression(*key, kind="disappeared", old=cell.result, new=None))
    return regressions


def describe_diff(regressions: Sequence[Regression]) -> str:
    """The regressions as text, one per line, or a line saying there are none."""
    if not regressions:
        return "no regressions\n"
    lines = [f"{len(regressions)} regression(s):"]
    lines += [f"  {regression.describe()}" for regression in regressions]
    return "\n".join(lines) + "\n"
