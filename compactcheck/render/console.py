"""The report at a terminal, with rich: header, conformance table, then each violation."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from compactcheck.render._digest import (
    calls_line,
    counts_line,
    header_fields,
    outputs,
    problems,
    see_violations,
    verdict_count,
    way_note,
    where,
)
from compactcheck.render._stderr import stderr_parts
from compactcheck.render.fidelity_rows import fidelity_gaps, fidelity_rows
from compactcheck.render.points import print_points
from compactcheck.render.review import REVIEW_NOTE, review_count, review_lines, reviews
from compactcheck.render.violation import violation_parts
from compactcheck.report.compare import Regression, Summary
from compactcheck.report.model import InvariantResult, Report, TargetReport, Verdict
from compactcheck.report.untrusted import block, safe_line
from compactcheck.verdicts.causes import cause_numbers, causes
from compactcheck.verdicts.counts import errored_clause

VERDICT_STYLES: dict[Verdict, str] = {
    "pass": "green",
    "violation": "bold red",
    "errored": "magenta",
    "skipped": "yellow",
    "unknown": "yellow",
    "waived": "blue",
    "review": "bold yellow",
}


def _safe(text: str, style: str = "") -> Text:
    # Text objects are never parsed for markup or emoji codes; the text is cleaned first.
    return Text(safe_line(text), style=style)


def _verdict(verdict: Verdict, suffix: str = "") -> Text:
    return Text(verdict + suffix, style=VERDICT_STYLES[verdict])


def print_report(
    report: Report, console: Console, reports: Mapping[str, Path] | None = None
) -> None:
    """Print the report to a rich console: header, table, violations (long contents cut, the
    ``reports`` written named as holding them whole), target problems."""
    header = Text("compactcheck report", style="bold")
    for name, value in header_fields(report):
        header.append(" · ")
        header.append(f"{name} ", style="dim")
        header.append(safe_line(value))
    console.print(header)
    if not report.complete:
        console.print(Text("INCOMPLETE: the run was interrupted; the results are partial.", "bold"))

    numbers = cause_numbers(report)
    reviewed = {id(result): number for number, (_, result) in reviews(report)}
    notes = _Numbers(numbers, reviewed)
    if console.width < _wide_width(report):
        _narrow_tables(report, console, notes)
    else:
        _wide_table(report, console, notes)
    _after_table(report, console, reports)
    print_points(report, console)


# Below this width the table is cut into one table per target, titled with its name: a law id
# or a target name is never broken across lines (CI logs are often 80 columns wide).
NARROW = 120
# What the one table needs beside its target and law columns: verdict, counts, borders, and a
# note column wide enough to read.
_BESIDE_NAMES = 60
# The target column of the one table is at least this wide (or as wide as its longest name): a
# longer name, a path as a rule, folds.
_TARGET_WIDTH = 30


def _target_width(report: Report) -> int:
    names = [len(f"{t.target} [{where(t)}]") for t in report.targets] or [0]
    return min(max(names), _TARGET_WIDTH)


def _wide_width(report: Report) -> int:
    """The least width at which the one table holds every law id whole beside its target."""
    ids = [len(r.invariant) for t in report.targets for r in t.results] or [0]
    return max(NARROW, _target_width(report) + max(ids) + _BESIDE_NAMES)


def shortened(names: Sequence[str], width: int) -> list[str]:
    """Each name cut to ``width`` in its middle ("py:/long/pa…/mine.py:compact"), all distinct.

    The start (the kind of target) and the end (the file and callable, or the component) are
    what tell targets apart; where two cut names still coincide, the cut moves until they
    differ, and a name is never cut below its own length when it fits.
    """
    out: list[str] = []
    for name in names:
        if len(name) <= width:
            out.append(name)
            continue
        # A third for the start, the rest for the end, where file, callable and view are.
        head = max(4, (width - 1) // 3)
        tail = width - 1 - head
        candidate = f"{name[:head]}…{name[-tail:]}"
        others = [n for n in names if n != name]
        # Keep more of the end while another name would cut to the same text.
        while any(len(o) > width and f"{o[:head]}…{o[-tail:]}" == candidate for o in others):
            if head <= 4:
                break
            head, tail = head - 1, tail + 1
            candidate = f"{name[:head]}…{name[-tail:]}"
        out.append(candidate)
    # Still equal (names that differ only in the middle): number them.
    seen: dict[str, int] = {}
    for index, text in enumerate(out):
        if out.count(text) > 1:
            seen[text] = seen.get(text, 0) + 1
            out[index] = f"{text[: max(1, width - 3)]}#{seen[text]}"
    return out


def _narrow_tables(report: Report, console: Console, numbers: _Numbers) -> None:
    titles = [f"{target.target} [{where(target)}]" for target in report.targets]
    for title, target in zip(shortened(titles, console.width - 4), report.targets, strict=True):
        table = Table(title=_safe(title), title_justify="left", expand=True)
        table.add_column("invariant", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("exercised/\nhistories", justify="right", no_wrap=True)
        table.add_column("note", ratio=1)
        notes, shared = _notes(target, numbers)
        for result, note in zip(target.results, notes, strict=True):
            table.add_row(
                _safe(result.invariant),
                _verdict(result.verdict),
                f"{result.exercised}/{result.examples}",
                _safe(note),
            )
        console.print(table)
        _print_shared(shared, console)
    console.print(
        Text(
            "(exercised/histories: compactions that exercised the law / histories run; a history "
            "is compacted up to --rounds times, so the first may exceed the second; for "
            "call_answered, the calls judged)",
            style="dim",
        )
    )


def _wide_table(report: Report, console: Console, numbers: _Numbers) -> None:
    table = Table(title="Conformance")
    table.add_column("target [view]", overflow="fold", ratio=2, min_width=_target_width(report))
    # A law id is never broken across lines: it is copied into --invariants and the like.
    table.add_column("invariant", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("examples", justify="right", no_wrap=True)
    table.add_column("exercised", justify="right", no_wrap=True)
    table.add_column("note", ratio=3)
    shared: list[str] = []
    for target in report.targets:
        notes, own = _notes(target, numbers, start=len(shared))
        shared += own
        for index, (result, note) in enumerate(zip(target.results, notes, strict=True)):
            # The target is named once, on the first row of its group.
            name = f"{target.target} [{where(target)}]" if index == 0 else ""
            table.add_row(
                _safe(name),
                _safe(result.invariant),
                _verdict(result.verdict),
                str(result.examples),
                str(result.exercised),
                _safe(note),
            )
    console.print(table)
    _print_shared(shared, console)


# A note said by at least this many of a target's laws is printed once, under the table.
_SHARED_AT = 3


@dataclass(frozen=True)
class _Numbers:
    """Where a result's panel is: its violation's number, its review's number."""

    violations: dict[int, int]
    reviews: dict[int, int]

    def __contains__(self, key: int) -> bool:
        return key in self.violations

    def __getitem__(self, key: int) -> int:
        return self.violations[key]


def _notes(target: TargetReport, numbers: _Numbers, start: int = 0) -> tuple[list[str], list[str]]:
    """Each law's note for the table, and the notes said once under it for several laws.

    A violation's note points to its panel. Passes beside calls that errored end with the same
    clause, and a target that never compacted gives each law the same long reason: the table
    says these once (numbered from ``start + 1``) rather than on every row.
    """
    notes: list[str] = []
    for result in target.results:
        if id(result) in numbers:
            notes.append(see_violations(numbers[id(result)], result))
        elif result.verdict == "review" and id(result) in numbers.reviews:
            notes.append(f"{review_count(result)}: see review {numbers.reviews[id(result)]}")
        else:
            notes.append(result.because or "")
    shared: list[str] = []
    clause = _errored_pass_clause(target.results, numbers)
    if clause:
        shared.append(f"the passes above judged the answered calls only: {clause[2:]}")
        label = f"(see note {start + len(shared)})"
        notes = [
            f"{note.removesuffix(clause)} {label}"
            if result.verdict == "pass" and note.endswith(clause)
            else note
            for result, note in zip(target.results, notes, strict=True)
        ]
    counted: dict[str, int] = {}
    for result, note in zip(target.results, notes, strict=True):
        if id(result) not in numbers and note:
            counted[note] = counted.get(note, 0) + 1
    for note, count in counted.items():
        if count >= _SHARED_AT:
            shared.append(note)
            label = f"see note {start + len(shared)}"
            notes = [label if n == note else n for n in notes]
    return notes, shared


def _errored_pass_clause(results: Sequence[InvariantResult], numbers: _Numbers) -> str:
    """The clause that passes beside errored calls share, when at least two passes say it."""
    ends = {
        errored_clause(r.errored)
        for r in results
        if r.verdict == "pass" and id(r) not in numbers and r.errored
    }
    if len(ends) != 1:
        return ""
    (clause,) = ends
    saying = [r for r in results if r.verdict == "pass" and (r.because or "").endswith(clause)]
    return clause if len(saying) >= 2 else ""


def _print_shared(shared: Sequence[str], console: Console) -> None:
    for number, note in enumerate(shared, start=1):
        console.print(_safe(f"note {number}: {note}", "dim"))


def _after_table(report: Report, console: Console, reports: Mapping[str, Path] | None) -> None:
    for target in report.targets:
        calls = calls_line(target, report.max_examples)
        if calls:
            console.print(_safe(f"{target.target} [{where(target)}] {calls}", "dim"))
    _fidelity(report, console)

    # Items for review first: a reader must look at them before trusting the passes.
    listed = reviews(report)
    for number, (target, result) in listed:
        items = [Text(line) for line in review_lines(result)]
        title = Text.assemble(
            (f"review {number}: ", "bold yellow"),
            safe_line(result.invariant, 120),
            " on ",
            safe_line(target.target, 200),
            f" [{safe_line(where(target), 60)}]",
        )
        console.print(Panel(Group(*items), title=title, title_align="left", border_style="yellow"))
    if listed:
        console.print(_safe(REVIEW_NOTE, "dim"))

    for cause in causes(report):
        target = cause.target
        way = way_note(cause.result, cause.example)
        shown = violation_parts(
            cause.example, target, cut=True, reports=reports, also=cause.also, way=way
        )
        parts = [Text.assemble((p.label, "bold"), p.text, style=p.style) for p in shown]
        title = Text.assemble(
            (f"violation {cause.number}: ", "bold red"),
            safe_line(" and ".join(cause.laws), 240),
            " on ",
            safe_line(target.target, 200),
            f" [{safe_line(where(target), 60)}]",
        )
        console.print(Panel(Group(*parts), title=title, title_align="left", border_style="red"))

    for target in outputs(report):
        printed = stderr_parts(target)[0]
        title = Text.assemble(("output of ", "bold"), safe_line(target.target, 200))
        body = Group(Text("what it printed (stderr tail):", "bold"), Text(block(printed, 4000)))
        console.print(Panel(body, title=title, title_align="left", border_style="dim"))

    for target in problems(report):
        # A problem may end in a command to copy (ids to exclude): it is not cut at a line's
        # usual limit.
        lines: list[Text] = [Text(safe_line(f"error: {error}", 2000)) for error in target.errors]
        trouble = stderr_parts(target)[1]
        if trouble:
            lines += [Text("stderr (tail):", style="bold"), Text(block(trouble, 4000))]
        title = Text.assemble(("target problems: ", "bold magenta"), safe_line(target.target, 200))
        console.print(Panel(Group(*lines), title=title, title_align="left", border_style="magenta"))

    console.print(Text(counts_line(report)))


def _fidelity(report: Report, console: Console) -> None:
    """Each target's fidelity table: shares kept, beside the reference on the same inputs."""
    measured = [(target, rows) for target in report.targets if (rows := fidelity_rows(target))]
    titles = [f"fidelity of {target.target} [{where(target)}]" for target, _ in measured]
    for title, (target, rows) in zip(shortened(titles, console.width - 4), measured, strict=True):
        fidelity = target.fidelity
        assert fidelity is not None
        table = Table(title=_safe(title), title_justify="left")
        table.add_column("measure", no_wrap=True)
        table.add_column("mean", justify="right", no_wrap=True)
        table.add_column("range", justify="right", no_wrap=True)
        table.add_column("n", justify="right", no_wrap=True)
        if fidelity.reference is not None:
            table.add_column("ref.", justify="right", no_wrap=True)
        table.add_column("by round", no_wrap=True)
        for row in rows:
            cells = [row.label, row.mean, row.range, str(row.n)]
            if fidelity.reference is not None:
                cells.append(row.reference)
            table.add_row(*(_safe(cell) for cell in (*cells, " ".join(row.by_round))))
        console.print(table)
        note = (
            "n: compactions whose input held such facts; by round: rounds 1, 2, ...; sizes in "
            f"{fidelity.counter}; ref.: {fidelity.reference_note}"
        )
        console.print(_safe(note, "dim"))
        gaps = fidelity_gaps(target)
        if gaps:
            console.print(_safe("worse than the reference: " + "; ".join(gaps.values()), "yellow"))


def render_console(report: Report, *, width: int = 100) -> str:
    """The console rendering as plain text (no colours) for a terminal `width` columns wide."""
    output = io.StringIO()
    console = Console(
        file=output,
        width=width,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,
        legacy_windows=False,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
        _environ={},
    )
    print_report(report, console)
    # Rich pads lines to the width; trailing blanks would only make files and diffs noisy.
    return "".join(line.rstrip() + "\n" for line in output.getvalue().splitlines())


def print_summary(summary: Summary, console: Console) -> None:
    """Print a target x invariant matrix (from `compactcheck.report.compare.summary`)."""
    table = Table(title=f"Conformance across {len(summary.rows)} target(s)")
    table.add_column("invariant")
    for target, view in summary.rows:
        table.add_column(Text(f"{safe_line(target, 80)} [{safe_line(view, 40)}]"))
    for invariant in summary.invariants:
        cells: list[Text] = [_safe(invariant)]
        for row in summary.rows:
            cell = summary.cell(row, invariant)
            cells.append(Text("-", style="dim") if cell is None else _verdict(cell.result.verdict))
        table.add_row(*cells)
    console.print(table)
    counts = summary.counts()
    console.print(Text(", ".join(verdict_count(counts[v], v) for v in counts if counts[v])))


def print_regressions(regressions: Sequence[Regression], console: Console) -> None:
    """Print the regressions of `compactcheck.report.compare.diff`, one per line."""
    if not regressions:
        console.print(Text("no regressions", style="green"))
        return
    console.print(Text(f"{len(regressions)} regression(s):", style="bold red"))
    for regression in regressions:
        # describe() already cleaned the backend's text; Text keeps it from being read as markup.
        console.print(Text(f"  {regression.describe()}"))
