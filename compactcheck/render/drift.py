"""A drift run shown: a per-round table at the terminal, JSON, and an HTML page with its chart.

Each shows, per round, how many facts were kept, lost or reasserted, and which facts went wrong
in that round (with the laws that said so), so that a summariser that slowly rewrites a
constraint is seen in the round where it did.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup
from rich.console import Console
from rich.table import Table

from compactcheck.render._layout import render_page
from compactcheck.render.charts import MISSING_NOTE, ChartsMissingError, drawing, inline_svg
from compactcheck.report.drift import DriftRound, DriftRun, FactKind, FactRound, FactState
from compactcheck.report.untrusted import safe_line

# The colours of the fact states (the report's pass, violation and warning hues).
_STATES: tuple[tuple[FactState, str], ...] = (
    ("kept", "#2e8540"),
    ("lost", "#c0392b"),
    ("reasserted", "#c2571a"),
)


# The reading's rulings, in the order a reader weighs them, each with its colour.
_RULINGS: tuple[tuple[str, str], ...] = (
    ("kept", "#2e8540"),
    ("reworded", "#7fbf7b"),
    ("retired", "#a6cee3"),
    ("weakened", "#e0a526"),
    ("changed", "#c2571a"),
    ("contradicted", "#c0392b"),
    ("stale", "#7a3b9c"),
    ("dropped", "#5a6472"),
)


def rulings_of(drift_round: DriftRound) -> dict[str, int]:
    """How many of the round's facts got each ruling (facts the reading made none on left out)."""
    counts: dict[str, int] = {}
    for fact in drift_round.facts:
        if fact.ruling:
            counts[fact.ruling] = counts.get(fact.ruling, 0) + 1
    return counts


def _ruling_line(drift_round: DriftRound) -> str:
    counts = rulings_of(drift_round)
    return ", ".join(f"{name} {counts[name]}" for name, _ in _RULINGS if name in counts)


def news(run: DriftRun, drift_round: DriftRound) -> list[str]:
    """The facts that first went wrong in this round, each with its state and laws."""
    return [
        f"{onset.kind} {onset.fact!r} {onset.state} ({', '.join(onset.laws)})"
        for onset in run.onsets()
        if onset.round == drift_round.round
    ]


def print_drift(run: DriftRun, console: Console) -> None:
    """The per-round table, then the rounds where a fact first went wrong."""
    model = f" · model {run.model}" if run.model else ""
    console.print(
        f"drift {safe_line(run.target, 120)}{model} · seed {run.seed} · {len(run.rounds)} rounds",
        highlight=False,
    )
    table = Table(show_lines=False)
    for column in (
        "round", "status", "kept", "lost", "reasserted", "rulings", "went wrong this round",
    ):  # fmt: skip
        table.add_column(column)
    for drift_round in run.rounds:
        fresh = news(run, drift_round)
        table.add_row(
            str(drift_round.round),
            drift_round.status,
            str(drift_round.count("kept")),
            str(drift_round.count("lost")),
            str(drift_round.count("reasserted")),
            _ruling_line(drift_round),
            safe_line("; ".join(fresh), 400),
            style="red" if fresh else None,
        )
    console.print(table)
    for drift_round in run.rounds:
        for text in drift_round.other:
            console.print(f"round {drift_round.round}: {safe_line(text, 300)}", highlight=False)
    verdict = "[red]drifted[/]" if run.failed() else "[green]no drift[/]"
    console.print(verdict)


def drift_chart(run: DriftRun) -> str | None:
    """Stacked bars of the fact states per round, a marker where a fact first went wrong."""
    judged = [r for r in run.rounds if r.facts]
    if not judged:
        return None
    try:
        return _drift_chart(run, judged)
    except ChartsMissingError:
        return MISSING_NOTE


def _drift_chart(run: DriftRun, judged: list[DriftRound]) -> str:
    numbers = [r.round for r in judged]
    with drawing(6.4, 2.8) as figure:
        axes = figure.add_subplot()
        bottom = [0] * len(judged)
        for state, colour in _STATES:
            heights = [r.count(state) for r in judged]
            axes.bar(numbers, heights, bottom=bottom, color=colour, label=state, width=0.7)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        onsets = {onset.round for onset in run.onsets()}
        for number, top in zip(numbers, bottom, strict=True):
            if number in onsets:
                axes.plot([number], [top + 0.6], marker="v", color="#7a130c")
        axes.set_xticks(numbers)
        axes.set_xlabel("compaction round")
        axes.set_ylabel("facts")
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return inline_svg(figure, f"facts kept, lost and reasserted per round by {run.target}")


def rulings_chart(run: DriftRun) -> str | None:
    """Stacked bars of the reading's rulings per round (None when it made none)."""
    judged = [r for r in run.rounds if rulings_of(r)]
    if not judged:
        return None
    try:
        return _rulings_chart(run, judged)
    except ChartsMissingError:
        return MISSING_NOTE


def _rulings_chart(run: DriftRun, judged: list[DriftRound]) -> str:
    numbers = [r.round for r in judged]
    counts = [rulings_of(r) for r in judged]
    with drawing(6.4, 2.8) as figure:
        axes = figure.add_subplot()
        bottom = [0] * len(judged)
        for ruling, colour in _RULINGS:
            heights = [count.get(ruling, 0) for count in counts]
            if any(heights):
                axes.bar(numbers, heights, bottom=bottom, color=colour, label=ruling, width=0.7)
                bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        axes.set_xticks(numbers)
        axes.set_xlabel("compaction round")
        axes.set_ylabel("facts")
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return inline_svg(figure, f"the reading's ruling on each fact per round by {run.target}")


@dataclass(frozen=True)
class _Row:
    round: int
    status: str
    kept: int
    lost: int
    reasserted: int
    rulings: str
    news: list[str]


@dataclass(frozen=True)
class _Cell:
    state: str
    title: str


def _cell(fact: FactRound | None) -> _Cell | None:
    if fact is None:
        return None
    title = ", ".join(fact.laws) if fact.laws else "no law failed on it"
    if fact.ruling:
        title += f"; ruling: {fact.ruling}"
    return _Cell(fact.state, title)


def render_drift_html(run: DriftRun) -> str:
    """The drift run as a complete, self-contained HTML document."""
    rows = [
        _Row(
            r.round,
            r.status,
            r.count("kept"),
            r.count("lost"),
            r.count("reasserted"),
            _ruling_line(r),
            news(run, r),
        )
        for r in run.rounds
    ]
    keys: dict[tuple[str, FactKind], None] = {}
    for drift_round in run.rounds:
        for fact in drift_round.facts:
            keys[(fact.fact, fact.kind)] = None
    by_round = [{(f.fact, f.kind): f for f in r.facts} for r in run.rounds]
    grid = [
        (fact, kind, [_cell(facts.get((fact, kind))) for facts in by_round]) for fact, kind in keys
    ]
    chart = drift_chart(run)
    ruled = rulings_chart(run)
    fields = [("target", run.target), ("model", run.model or "its own"), ("seed", str(run.seed))]
    return render_page(
        "drift.html.j2",
        title=f"compactcheck drift · {safe_line(run.target, 80)} · seed {run.seed}",
        fields=fields,
        rows=rows,
        chart=Markup(chart) if chart else None,
        rulings_chart=Markup(ruled) if ruled else None,
        numbers=[r.round for r in run.rounds],
        grid=grid,
        others=[(r.round, text) for r in run.rounds for text in r.other],
    )
