"""The published index: every report's level, waivers, matrix and witnesses on one HTML page.

``reports/regenerate`` builds it from the JSON reports it publishes, adding for each violation
what only it knows (the parameters the adapter drew, the public issues of the same defect).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup
from pydantic import JsonValue

from compactcheck.render._digest import waived_text
from compactcheck.render._layout import render_page
from compactcheck.render.charts import tradeoff_chart
from compactcheck.render.conversation import Picture, picture
from compactcheck.render.fidelity_rows import FIDELITY_LABELS, fidelity_gaps, measure_text
from compactcheck.render.violation import history_text
from compactcheck.report.compare import summary
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
from compactcheck.verdicts.levels import target_level_text


@dataclass(frozen=True)
class Published:
    """One violation on the index, with the context the publisher adds beside it."""

    target: TargetReport
    result: InvariantResult
    example: Counterexample
    parameters: JsonValue
    """The parameters the component ran with in that history."""
    issues: tuple[str, ...] = ()
    """Public reports of the same defect."""

    @property
    def version(self) -> str:
        """The component's version, '' when the target did not say."""
        return self.target.implementation.version if self.target.implementation else ""

    @property
    def picture(self) -> Picture | None:
        """The witness as a conversation or an event list."""
        target, example = self.target, self.example
        return picture(target.view, example.input, example.output, target.format)

    @property
    def history(self) -> str:
        """The failing round's input size, counted as the witness's indexes are."""
        return history_text(self.example, self.target)

    @property
    def dump(self) -> dict[str, JsonValue]:
        """Witness, input and output together, as the raw JSON of the witness."""
        return {
            "witness": self.example.witness,
            "input": self.example.input,
            "output": self.example.output,
        }


def level_rows(reports: Sequence[Report]) -> list[tuple[str, str, str]]:
    """(target, level reached, laws waived with their reasons) of every report, in order."""
    rows = []
    for report in reports:
        for target in report.targets:
            waived = waived_text(target)
            rows.append((target.target, target_level_text(target) or "-", waived or "none"))
    return rows


@dataclass(frozen=True)
class FidelityLine:
    """One target's fidelity on the index: each measure's mean, the reference's beside it."""

    number: int
    """The target's point on the chart."""
    target: str
    cells: list[tuple[str, str, bool]]
    """(this target's mean, the reference's mean, whether the target does worse), by kind."""
    compactions: int


def measured_targets(reports: Sequence[Report]) -> list[TargetReport]:
    """Every target with fidelity figures, in report order: the table's rows, the chart's points."""
    return [t for report in reports for t in report.targets if t.fidelity is not None]


def fidelity_lines(reports: Sequence[Report]) -> list[FidelityLine]:
    """The fidelity row of every target that has figures, numbered as on the chart."""
    lines = []
    for number, target in enumerate(measured_targets(reports), start=1):
        fidelity = target.fidelity
        assert fidelity is not None
        ours = fidelity.target.overall.measures
        theirs = fidelity.reference.overall.measures if fidelity.reference else {}
        gaps = fidelity_gaps(target)
        cells = [
            (
                measure_text(kind, ours.get(kind)),
                measure_text(kind, theirs.get(kind)) if fidelity.reference else "",
                kind in gaps,
            )
            for kind in FIDELITY_LABELS
        ]
        compactions = fidelity.target.overall.compactions
        lines.append(FidelityLine(number, target.target, cells, compactions))
    return lines


@dataclass(frozen=True)
class _Cell:
    verdict: str
    number: int | None


def render_index(
    reports: Sequence[Report],
    found: Sequence[Published],
    *,
    title: str,
    intro: str,
    levels_intro: str,
    confirmations: str,
) -> str:
    """The index page: ``intro`` under the title, ``confirmations`` the link to hand checks."""
    table = summary(reports)
    targets = measured_targets(reports)
    numbers = {
        (item.target.target, item.target.view, item.result.invariant): number
        for number, item in enumerate(found, start=1)
    }
    rows: list[tuple[str, list[_Cell]]] = []
    for row in table.rows:
        cells = []
        for invariant in table.invariants:
            cell = table.cell(row, invariant)
            verdict = cell.result.verdict if cell else "-"
            cells.append(_Cell(verdict, numbers.get((row[0], row[1], invariant))))
        rows.append((row[0], cells))
    return render_page(
        "index.html.j2",
        title=title,
        intro=intro,
        levels_intro=levels_intro,
        confirmations=confirmations,
        levels=level_rows(reports),
        invariants=table.invariants,
        rows=rows,
        found=[(n, p, json.dumps(p.parameters)) for n, p in enumerate(found, 1)],
        kinds=list(FIDELITY_LABELS.values()),
        fidelity=fidelity_lines(reports),
        tradeoff=Markup(chart) if (chart := tradeoff_chart(targets)) is not None else None,
    )


__all__ = [
    "FidelityLine",
    "Published",
    "fidelity_lines",
    "level_rows",
    "measured_targets",
    "render_index",
]
