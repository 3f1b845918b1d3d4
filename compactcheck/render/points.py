"""The compaction points of an audit of traces, in each report format: one result per point."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from compactcheck.render.conversation import Picture, picture
from compactcheck.report.model import Report
from compactcheck.report.trace_points import TracePoint, TraceReading
from compactcheck.report.untrusted import safe_line


def readings(report: Report) -> list[TraceReading]:
    """Every audit of traces in the report."""
    return [t.traces for t in report.targets if t.traces is not None]


def fate(point: TracePoint) -> str:
    """What became of the messages, in one line."""
    parts = [f"{point.kept} kept"]
    for count, word in (
        (point.rewritten, "rewritten"),
        (point.summarised, "summarised"),
        (point.dropped, "dropped"),
        (point.inserted, "inserted"),
    ):
        if count:
            parts.append(f"{count} {word}")
    return ", ".join(parts) + f" ({point.messages_before} -> {point.messages_after} messages)"


def read_line(reading: TraceReading) -> str:
    """What was read and compared, in one line."""
    return (
        f"read {reading.spans} spans, {reading.log_events} log events, {reading.model_calls} model "
        f"calls in {reading.conversations} conversations ({reading.lineages} agent lineages); "
        f"{reading.pairs} consecutive calls compared: {reading.continuations} continued, "
        f"{reading.compactions} compaction points; {sum(reading.skipped.values())} calls skipped"
        + (
            f"; {reading.points_left_out} points judged but not listed (past --keep-points)"
            if reading.points_left_out
            else ""
        )
    )


def print_points(report: Report, console: Console) -> None:
    """The points as a table at a terminal."""
    for reading in readings(report):
        console.print(Text(safe_line(read_line(reading), 1000)))
        for reason, count in reading.skipped.items():
            console.print(Text(safe_line(f"skipped {count}: {reason}", 1000), style="yellow"))
        if not reading.points:
            continue
        table = Table(title="compaction points", show_lines=False)
        for name in ("#", "trace / span", "time", "verdict", "messages", "laws broken"):
            table.add_column(name)
        for point in reading.points:
            style = "bold red" if point.verdict == "violation" else "green"
            table.add_row(
                str(point.number),
                Text(safe_line(f"{point.trace_id} / {point.span_id}", 80)),
                Text(safe_line(point.time, 40)),
                Text(point.verdict, style=style),
                Text(safe_line(fate(point), 120)),
                Text(safe_line(", ".join(v.invariant for v in point.violations) or "-", 200)),
            )
        console.print(table)


def markdown_points(report: Report, escape: object) -> list[str]:
    """The points as a Markdown section (``escape`` is the renderer's inert-text function)."""
    text = escape  # the markdown renderer's text(): passed in, so the layers stay apart
    out: list[str] = []
    for reading in readings(report):
        out += ["## Compaction points", "", text(read_line(reading), 1000), ""]  # type: ignore[operator]
        for reason, count in reading.skipped.items():
            out.append(f"- skipped {count}: {text(reason, 1000)}")  # type: ignore[operator]
        if reading.skipped:
            out.append("")
        if reading.points:
            out += ["| # | trace | span | time | verdict | messages | laws broken |",
                    "|---:|---|---|---|---|---|---|"]  # fmt: skip
        for p in reading.points:
            broken = "; ".join(f"{v.invariant}: {v.because}" for v in p.violations) or "—"
            out.append(
                f"| {p.number} | `{p.trace_id}` | `{p.span_id}` | {text(p.time, 40)} | "  # type: ignore[operator]
                f"{p.verdict} | {text(fate(p), 200)} | {text(broken, 1000)} |"  # type: ignore[operator]
            )
        out.append("")
    return out


def junit_points(report: Report, root: ET.Element) -> None:
    """A testsuite of the points, a testcase each (failed where it broke a law)."""
    for reading in readings(report):
        suite = ET.SubElement(root, "testsuite", name="compaction points")
        failures = 0
        for p in reading.points:
            case = ET.SubElement(
                suite,
                "testcase",
                name=safe_line(
                    f"point {p.number}: trace {p.trace_id} span {p.span_id} at {p.time}", 300
                ),
                classname=safe_line(f"conversation {p.conversation}", 200),
            )
            if p.violations:
                failures += 1
                failure = ET.SubElement(
                    case, "failure", type="violation",
                    message=safe_line(", ".join(v.invariant for v in p.violations), 500),
                )  # fmt: skip
                failure.text = "\n".join(
                    [
                        fate(p),
                        *(safe_line(f"{v.invariant}: {v.because}", 2000) for v in p.violations),
                    ]
                )
        suite.set("tests", str(len(reading.points)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")


@dataclass(frozen=True)
class ShownPoint:
    """One point as the HTML page shows it: its record and the conversation around it."""

    point: TracePoint
    fate: str
    picture: Picture | None


def html_points(report: Report) -> tuple[list[str], list[ShownPoint]]:
    """The read lines and the points, each with its conversation where the report kept it."""
    lines: list[str] = []
    shown: list[ShownPoint] = []
    for reading in readings(report):
        lines.append(read_line(reading))
        lines += [f"skipped {count}: {reason}" for reason, count in reading.skipped.items()]
        for p in reading.points:
            seen = (
                picture("messages", p.before, p.after, p.format) if p.before is not None else None
            )
            shown.append(ShownPoint(p, fate(p), seen))
    return lines, shown


__all__ = [
    "fate",
    "html_points",
    "junit_points",
    "markdown_points",
    "print_points",
    "read_line",
    "readings",
]
