"""`compactcheck audit TRACES`: the compactions in trace files or a running Phoenix, judged."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO

from rich.console import Console

from compactcheck.base.errors import ExitCode, OutputFileError, one_line
from compactcheck.cli.github import error_annotations, step_summary
from compactcheck.cli.options import natural, opened_judge, toolkit_version, write_outputs
from compactcheck.observed.traces import KINDS, TraceError, audit_traces
from compactcheck.observed.traces.conversations import DEFAULT_WINDOW
from compactcheck.observed.traces.judging import KEEP_CONVERSATIONS, KEEP_POINTS
from compactcheck.observed.traces.records import Record
from compactcheck.observed.traces.sources import files, kind_of
from compactcheck.render import print_report
from compactcheck.report import untrusted
from compactcheck.report.trace_points import TracePoint
from compactcheck.verdicts import audit_exit


def add(parser: argparse.ArgumentParser) -> None:
    """The audit's options for traces."""
    group = parser.add_argument_group("traces (LOG is a trace file or folder)")
    group.add_argument(
        "--trace-format",
        choices=KINDS,
        default=None,
        help="the trace file format (default: read from each file's first bytes)",
    )
    group.add_argument(
        "--phoenix", metavar="URL", help="read the spans of a running Phoenix server instead"
    )
    group.add_argument(
        "--project", default="default", help="the Phoenix project (default: default)"
    )
    group.add_argument(
        "--window",
        type=natural,
        default=DEFAULT_WINDOW,
        help="records read without a span of a trace before it is closed (default: "
        f"{DEFAULT_WINDOW}); raise it when the spans of one trace lie far apart in the file",
    )
    group.add_argument(
        "--keep-conversations",
        type=natural,
        default=KEEP_CONVERSATIONS,
        help="compaction points whose histories the report keeps for its HTML view "
        f"(default: {KEEP_CONVERSATIONS}, violations first)",
    )
    group.add_argument(
        "--keep-points",
        type=natural,
        default=KEEP_POINTS,
        help="compaction points the report lists (default: "
        f"{KEEP_POINTS}, violations first); the rest are judged and counted",
    )
    group.add_argument(
        "--points",
        type=Path,
        metavar="FILE",
        help="also write every compaction point's result to FILE, one JSON object a line, as "
        "it is judged (no limit)",
    )


def wanted(arguments: argparse.Namespace) -> bool:
    """Whether the audit is of traces: --phoenix, --trace-format, or LOG reads as traces."""
    if arguments.phoenix or arguments.trace_format:
        return True
    log: Path | None = arguments.log
    if log is None:
        return False
    try:
        first = files(log)[0]
        head = first.read_bytes()[:4096]
    except (TraceError, OSError):
        return False
    if b'"before"' in head and b'"after"' in head:
        return False
    try:
        kind_of(first)
    except TraceError:
        return False
    return True


def _line(point: TracePoint) -> str:
    where = f"trace {point.trace_id} span {point.span_id} at {point.time or '?'}"
    laws = "; ".join(f"{v.invariant}: {v.because}" for v in point.violations)
    return f"{where}: {laws}"


def _points_file(path: Path | None) -> IO[str] | None:
    if path is None:
        return None
    try:
        return path.open("w", encoding="utf-8")
    except OSError as error:
        raise OutputFileError(f"--points {path}: cannot write it: {one_line(error)}") from None


def traces_main(arguments: argparse.Namespace, console: Console) -> int:
    """Judge every compaction point of the traces, a line per point that broke a law."""
    with ExitStack() as stack:
        points = _points_file(arguments.points)
        if points is not None:
            stack.enter_context(points)

        def show(point: TracePoint) -> None:
            if points is not None:
                points.write(point.model_dump_json() + "\n")
            if point.violations and not arguments.quiet:
                print(untrusted.safe_line(_line(point), 2000), flush=True)

        if arguments.phoenix:
            from compactcheck.observed.traces.phoenix import pull

            sources: Sequence[Path] | Iterable[Record] = pull(arguments.phoenix, arguments.project)
            name = f"{arguments.phoenix} project {arguments.project}"
        else:
            if arguments.log is None:
                raise TraceError("audit: give LOG (a trace file or folder) or --phoenix URL")
            sources, name = [arguments.log], str(arguments.log)
        report = audit_traces(
            sources,
            trace_format=arguments.trace_format,
            invariants=arguments.invariants,
            exclude=tuple(arguments.exclude_invariants),
            facts=arguments.declared_facts,
            window=arguments.window,
            keep_conversations=arguments.keep_conversations,
            keep_points=arguments.keep_points,
            on_point=show,
            toolkit_version=toolkit_version(),
            name=name,
            judge=opened_judge(arguments),
            strict_review=arguments.strict_review,
        )
    write_outputs(report, arguments)
    print_report(report, console)
    step_summary(report)
    target = report.targets[0]
    reading = target.traces
    assert reading is not None
    error_annotations(
        (f"compactcheck: {v.invariant}", f"trace {p.trace_id} span {p.span_id} at {p.time}: "
         f"{v.because}")
        for p in reading.points
        for v in p.violations
    )  # fmt: skip
    code = audit_exit(report)
    if code == ExitCode.USAGE:
        for error in target.errors:
            console.print(untrusted.safe_line(error, 2000), style="red", highlight=False)
    return code


__all__ = ["add", "traces_main", "wanted"]
