"""The fidelity measures drawn as inline SVG with matplotlib: no script, no network, no files.

matplotlib is the optional ``charts`` extra: without it, each chart is a one-line note that
says so and how to install it, and the numbers stay in the tables beside it.

Two pictures: a target's survival of each fact kind over the rounds of its histories (its
reference on the same inputs dashed beside it), and, across targets, what each one keeps
against how much it shrinks the history. Both are drawn from the report alone, so the HTML
page that holds them stays one self-contained file; the same report always draws the same SVG.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from xml.sax.saxutils import quoteattr

from compactcheck.invariants.fidelity import KINDS
from compactcheck.render.fidelity_rows import FIDELITY_LABELS
from compactcheck.report.model import FidelitySide, TargetReport
from compactcheck.report.untrusted import safe_line

# One colour per fact kind whose survival is drawn (distinct in greyscale too).
_COLOURS = {
    "must_keep": "#1f5fa8",
    "constraints": "#c2571a",
    "pending": "#2e8540",
    "changed_files": "#7a3b9c",
}


# What stands in for a chart when matplotlib is not installed (the HTML escapes nothing here).
MISSING_NOTE = (
    '<p class="dim">Chart not drawn: matplotlib is not installed '
    "(<code>pip install 'compactcheck[charts]'</code>); the figures are in the table.</p>"
)


class ChartsMissingError(Exception):
    """matplotlib, the optional charts extra, could not be imported."""


@contextmanager
def drawing(width: float, height: float) -> Iterator[Any]:
    # Imported here: matplotlib takes a moment to load, and only the HTML report draws.
    try:
        import matplotlib as mpl
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ChartsMissingError from error

    with mpl.rc_context(
        {
            # Ids in the SVG from a fixed salt, text kept as text: one report, the same bytes.
            "svg.hashsalt": "compactcheck",
            "svg.fonttype": "none",
            # A "$" in a target's name must stay a dollar sign, not start matplotlib's math mode.
            "text.parse_math": False,
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    ):
        figure = Figure(figsize=(width, height), layout="constrained")
        yield figure


def inline_svg(figure: Any, label: str) -> str:
    """The figure as an inline <svg> element (no XML prolog), labelled for screen readers."""
    buffer = io.StringIO()
    # No metadata block: no date (the same report, the same bytes), no creator, no licence.
    empty = {"Date": None, "Creator": None, "Format": None, "Type": None}
    figure.savefig(buffer, format="svg", metadata=empty)
    text = buffer.getvalue()
    svg = text[text.index("<svg") :]
    # matplotlib writes width and height in points; a viewBox is kept, so CSS can scale it.
    svg = re.sub(r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', r"<svg \1", svg, count=1)
    return svg.replace("<svg ", f'<svg role="img" aria-label={quoteattr(label)} ', 1)


def _share(side: FidelitySide, kind: str) -> tuple[list[int], list[float]]:
    rounds = [r for r in side.rounds if kind in r.measures]
    return [r.round for r in rounds], [r.measures[kind].mean * 100 for r in rounds]


def survival_chart(target: TargetReport) -> str | None:
    """Each fact kind's share kept, round by round (None when nothing was measured)."""
    try:
        return _survival_chart(target)
    except ChartsMissingError:
        return MISSING_NOTE


def _survival_chart(target: TargetReport) -> str | None:
    fidelity = target.fidelity
    if fidelity is None or not fidelity.target.rounds:
        return None
    numbers = [r.round for r in fidelity.target.rounds]
    with drawing(6.4, 2.8) as figure:
        axes = figure.add_subplot()
        for kind in KINDS:
            xs, ys = _share(fidelity.target, kind)
            if not xs:
                continue
            colour = _COLOURS[kind]
            axes.plot(xs, ys, marker="o", color=colour, label=FIDELITY_LABELS[kind])
            if fidelity.reference is not None:
                rx, ry = _share(fidelity.reference, kind)
                axes.plot(rx, ry, linestyle="--", linewidth=1, color=colour, alpha=0.7)
        axes.set_xticks(numbers)
        axes.set_xlim(min(numbers) - 0.3, max(numbers) + 0.3)
        axes.set_ylim(-4, 104)
        axes.set_xlabel("compaction round")
        axes.set_ylabel("share kept (%)")
        axes.grid(axis="y", color="#e3e6ea")
        if fidelity.reference is not None:
            axes.plot([], [], linestyle="--", color="#5a6472", label=fidelity.reference_target)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        name = safe_line(target.target, 120)
        return inline_svg(figure, f"share of each fact kind kept per round by {name}")


def _retention(side: FidelitySide) -> float | None:
    """The mean of the survival shares a side measured (None when it measured none)."""
    shares = [side.overall.measures[k].mean for k in KINDS if k in side.overall.measures]
    return sum(shares) / len(shares) * 100 if shares else None


def tradeoff_chart(targets: Sequence[TargetReport]) -> str | None:
    """Facts kept against size kept: a numbered point per target, its reference hollow.

    A point is numbered by its target's place in ``targets`` (from 1), so that a table beside
    the chart can name it: two dozen names written into the plot would cover each other.
    """
    try:
        return _tradeoff_chart(targets)
    except ChartsMissingError:
        return MISSING_NOTE


def _tradeoff_chart(targets: Sequence[TargetReport]) -> str | None:
    points: list[tuple[int, float, float]] = []
    references: list[tuple[float, float]] = []
    for number, target in enumerate(targets, start=1):
        fidelity = target.fidelity
        if fidelity is None or "compression" not in fidelity.target.overall.measures:
            continue
        kept = _retention(fidelity.target)
        if kept is None:
            continue
        points.append((number, fidelity.target.overall.measures["compression"].mean * 100, kept))
        reference = fidelity.reference
        if reference is not None and "compression" in reference.overall.measures:
            reference_kept = _retention(reference)
            if reference_kept is not None:
                size = reference.overall.measures["compression"].mean * 100
                references.append((size, reference_kept))
    if not points:
        return None
    with drawing(7.2, 4.0) as figure:
        axes = figure.add_subplot()
        if references:
            axes.scatter(
                [x for x, _ in references],
                [y for _, y in references],
                s=20,
                facecolors="none",
                edgecolors="#8a94a0",
                label="the reference on the same inputs",
            )
        axes.scatter(
            [x for _, x, _ in points], [y for _, _, y in points], s=26, color="#1f5fa8",
            zorder=3, label="target (numbered as in the table)",
        )  # fmt: skip
        for number, size, kept in points:
            axes.annotate(
                str(number), (size, kept), xytext=(3, 3), textcoords="offset points", fontsize=7
            )
        axes.set_xlabel("size kept: output / input (%)")
        axes.set_ylabel("facts kept: mean of the four shares (%)")
        axes.set_ylim(-4, 108)
        axes.set_xlim(left=0)
        axes.grid(color="#e3e6ea")
        axes.legend(loc="lower right", frameon=False)
        return inline_svg(figure, "facts kept against size kept, one numbered point per target")
