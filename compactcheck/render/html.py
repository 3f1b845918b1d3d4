"""The report as one self-contained HTML page: no scripts, no external resources, inline CSS.

The page is the template ``templates/report.html.j2``; this module gathers what it shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from compactcheck.render._digest import (
    calls_line,
    counts_line,
    header_fields,
    outputs,
    problems,
    unconcluded,
    way_note,
    where,
)
from compactcheck.render._layout import CSP, render_page
from compactcheck.render._stderr import stderr_parts
from compactcheck.render.charts import survival_chart
from compactcheck.render.conversation import Picture, picture
from compactcheck.render.fidelity_rows import FidelityRow, fidelity_gaps, fidelity_rows
from compactcheck.render.points import html_points
from compactcheck.render.review import REVIEW_NOTE, placed, review_count, reviews
from compactcheck.render.violation import (
    fix_lines,
    history_text,
    input_problems_line,
    same_cause_parts,
)
from compactcheck.report.compare import summary
from compactcheck.report.model import Counterexample, Report, Verdict
from compactcheck.verdicts.causes import cause_links, causes

# Kept under its old name: the browser test swaps the policy out to test the escaping alone.
_CSP = CSP


@dataclass(frozen=True)
class _Cell:
    verdict: Verdict
    title: str
    number: int | None


@dataclass(frozen=True)
class _Witness:
    number: int
    invariant: str
    target: str
    place: str
    view: str
    examples: int
    exercised: int
    example: Counterexample
    rejected: str | None
    picture: Picture | None
    history: str
    fix: tuple[str, ...] = ()
    # Which of its law's distinct ways it shows ("" for a law broken in one way).
    way: str = ""
    same_cause: tuple[tuple[str, str], ...] = ()
    """Each other law that found the same cause: its label and its own because line."""


@dataclass(frozen=True)
class Measured:
    """One target's fidelity as a page shows it: table rows, gaps and its survival chart."""

    target: str
    place: str
    counter: str
    note: str
    reference: bool
    rounds: list[int]
    rows: list[FidelityRow]
    worse: set[str]
    gaps: list[str]
    chart: Markup | None


def measured(report: Report) -> list[Measured]:
    """Every target of ``report`` that has fidelity figures, ready for fidelity.html.j2."""
    found: list[Measured] = []
    for target in report.targets:
        fidelity, rows = target.fidelity, fidelity_rows(target)
        if fidelity is None or not rows:
            continue
        gaps = fidelity_gaps(target)
        chart = survival_chart(target)
        found.append(
            Measured(
                target=target.target,
                place=where(target),
                counter=fidelity.counter,
                note=fidelity.reference_note,
                reference=fidelity.reference is not None,
                rounds=[r.round for r in fidelity.target.rounds],
                rows=rows,
                worse=set(gaps),
                gaps=list(gaps.values()),
                # Drawn by matplotlib from our numbers; it escapes every text it writes.
                chart=Markup(chart) if chart is not None else None,
            )
        )
    return found


@dataclass(frozen=True)
class _Problem:
    target: str
    place: str
    errors: list[str]
    stderr: str


def render_html(report: Report) -> str:
    """The report as a complete HTML document."""
    found = causes(report)
    links = cause_links(found)
    table = summary([report])
    rows: list[tuple[str, list[_Cell | None]]] = []
    for invariant in table.invariants:
        cells: list[_Cell | None] = []
        for row in table.rows:
            cell = table.cell(row, invariant)
            if cell is None:
                cells.append(None)
                continue
            result = cell.result
            number = links.get((row[0], row[1], invariant))
            title = f"{result.examples} examples, {result.exercised} exercised"
            if number is None and result.because:
                title = result.because
            cells.append(_Cell(result.verdict, title, number))
        rows.append((invariant, cells))
    witnesses = [
        _Witness(
            number=cause.number,
            invariant=" and ".join(cause.laws),
            target=cause.target.target,
            place=where(cause.target),
            view=cause.target.view,
            examples=cause.result.examples,
            exercised=cause.result.exercised,
            example=cause.example,
            rejected=input_problems_line(cause.example),
            picture=picture(
                cause.target.view, cause.example.input, cause.example.output, cause.target.format
            ),
            history=history_text(cause.example, cause.target),
            fix=tuple(fix_lines(cause.example)),
            way=way_note(cause.result, cause.example),
            same_cause=tuple((p.label.strip(), p.text) for p in same_cause_parts(cause.also)),
        )
        for cause in found
    ]
    return render_page(
        "report.html.j2",
        title=f"compactcheck report · seed {report.seed}",
        fields=header_fields(report),
        complete=report.complete,
        columns=table.rows,
        rows=rows,
        counts=counts_line(report),
        calls_lines=[
            (target.target, where(target), calls)
            for target in report.targets
            if (calls := calls_line(target, report.max_examples))
        ],
        witnesses=witnesses,
        reviews=[
            (number, t.target, where(t), r.invariant, review_count(r), placed(r.review))
            for number, (t, r) in reviews(report)
        ],
        review_note=REVIEW_NOTE,
        point_lines=html_points(report)[0],
        points=html_points(report)[1],
        measured=measured(report),
        others=[
            (r.verdict, r.invariant, t.target, where(t), r.because) for t, r in unconcluded(report)
        ],
        problems=[
            _Problem(t.target, where(t), t.errors, stderr_parts(t)[1]) for t in problems(report)
        ],
        outputs=[_Problem(t.target, where(t), [], stderr_parts(t)[0]) for t in outputs(report)],
    )
