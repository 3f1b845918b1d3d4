"""Judge the compaction points of traces: each one as ``check`` judges the same pair.

The report is an audit's (each law's verdict over every point, the first violation of each law
as its counterexample) with one result per compaction point beside it (``TargetReport.traces``):
trace id, span id, time, what became of each message, and each law's verdict there.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compactcheck.base.files import installed_version
from compactcheck.base.implementation import Implementation
from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts, Violation
from compactcheck.observed.judging import Judgement, check_pair
from compactcheck.observed.law_tally import LawTally
from compactcheck.observed.traces.conversations import DEFAULT_WINDOW, Tracker
from compactcheck.observed.traces.points import Point, locate
from compactcheck.observed.traces.records import Record, TraceError
from compactcheck.observed.traces.sources import read_all
from compactcheck.report.model import (
    Counterexample,
    InvariantResult,
    Report,
    TargetReport,
)
from compactcheck.report.trace_points import PointViolation, TracePoint, TraceReading
from compactcheck.verdicts.counts import (
    Counts,
    pair_verdict,
)
from compactcheck.verdicts.levels import level_reached

KEEP_CONVERSATIONS = 100
"""Points whose before and after histories a report keeps (the first ones, violations first)."""
KEEP_POINTS = 1000
"""Point results a report holds (violations first); past it, points are counted, not held, so
that memory stays bounded however long the traces: ``on_point`` still sees every one."""


if TYPE_CHECKING:
    from compactcheck.models import MeteredModel


@dataclass
class _State:
    selection: Selection
    facts: Facts | dict[str, Any] | None
    keep: int
    keep_points: int = KEEP_POINTS
    judge: MeteredModel | None = None
    laws: dict[str, LawTally] = field(default_factory=dict)
    formats: set[str] = field(default_factory=set)
    inferred: dict[str, None] = field(default_factory=dict)
    points: dict[int, TracePoint] = field(default_factory=dict)
    passing: deque[int] = field(default_factory=deque)
    """The numbers of the held points that broke no law, oldest first: the first let go."""
    found: int = 0
    left_out: int = 0
    kept: int = 0
    errors: list[str] = field(default_factory=list)

    def hold(self, point: TracePoint) -> None:
        """Hold a point's result, or count it: a violation takes a passing point's place."""
        if len(self.points) >= self.keep_points:
            if not point.violations or not self.passing:
                self.left_out += 1
                return
            del self.points[self.passing.popleft()]
            self.left_out += 1
        self.points[point.number] = point
        if not point.violations:
            self.passing.append(point.number)


def judge_point(
    point: Point,
    facts: Facts | dict[str, Any] | None,
    selection: Selection,
    judge: MeteredModel | None = None,
) -> Judgement:
    """The judgement of one point: ``check`` on its (before, after) pair, in its format."""
    return check_pair(
        point.before, point.after, facts, format=point.format, selection=selection, judge=judge
    )


def _time(nanos: int) -> str:
    if not nanos:
        return ""
    return datetime.fromtimestamp(nanos / 1e9, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _record(state: _State, point: Point, judgement: Judgement) -> TracePoint:
    laws = {finding.invariant: pair_verdict(finding) for finding in judgement.findings}
    broken = [
        PointViolation(invariant=v.invariant, because=v.because) for v in judgement.violations
    ]
    verdict = "violation" if broken else ("pass" if "pass" in laws.values() else "unknown")
    # Histories only for a point the report will hold (see ``_State.hold``).
    held = len(state.points) < state.keep_points or bool(broken and state.passing)
    keep = held and (state.kept < state.keep or bool(broken and state.kept < 2 * state.keep))
    if keep:
        state.kept += 1
    step = point.step
    state.found += 1
    return TracePoint(
        number=state.found,
        trace_id=step.current.trace_id,
        span_id=step.current.span_id,
        previous_span_id=step.previous.span_id,
        previous_trace_id=step.previous.trace_id,
        time=_time(step.current.start_ns),
        conversation=step.conversation,
        agent=step.agent,
        format=point.format,
        source=step.current.source,
        verdict=verdict,
        violations=broken,
        laws=laws,
        kept=len(point.kept),
        rewritten=len(point.rewritten),
        summarised=len(point.summarised),
        dropped=len(point.dropped),
        inserted=len(point.inserted),
        messages_before=len(point.kept)
        + len(point.rewritten)
        + len(point.summarised)
        + len(point.dropped),
        messages_after=len(point.kept) + len(point.rewritten) + len(point.inserted),
        head_changed=point.head_changed,
        output_recorded=point.output_recorded,
        before=point.before if keep else None,
        after=point.after if keep else None,
    )


def _counterexample(violation: Violation, point: Point) -> Counterexample:
    """The first violation of a law at a compaction point, with the histories around it."""
    return Counterexample(
        round=1,
        because=violation.because,
        witness=list(violation.witness),
        diff=violation.diff,
        input=point.before,
        output=point.after,
        history_size=len(point.kept)
        + len(point.rewritten)
        + len(point.summarised)
        + len(point.dropped),
        reproduced="not_checked",
    )


def _judge(state: _State, point: Point) -> TracePoint:
    judgement = judge_point(point, state.facts, state.selection, state.judge)
    state.formats.add(point.format)
    for name in judgement.inferred:
        state.inferred[name] = None
    for finding in judgement.findings:
        law = state.laws.get(finding.invariant)
        if law is None:
            chosen = next(
                x
                for x in state.selection.laws("messages", point.format)
                if x.id == finding.invariant
            )
            law = state.laws[finding.invariant] = LawTally(chosen)
        law.add(finding, lambda violation: _counterexample(violation, point))
    return _record(state, point, judgement)


def audit_traces(
    sources: Sequence[str | Path] | Iterable[Record],
    *,
    trace_format: str | None = None,
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    facts: Facts | dict[str, Any] | None = None,
    window: int = DEFAULT_WINDOW,
    keep_conversations: int = KEEP_CONVERSATIONS,
    keep_points: int = KEEP_POINTS,
    on_point: Callable[[TracePoint], None] | None = None,
    toolkit_version: str | None = None,
    name: str | None = None,
    judge: MeteredModel | None = None,
    strict_review: bool = False,
) -> Report:
    """Find the compaction points of traces and judge each one; the audit's report.

    ``sources`` are trace files or folders (any format ``sources`` reads; ``trace_format``
    names it instead), or records already read (a Phoenix pull). ``on_point`` sees each point
    as it is judged; the report holds ``keep_points`` of them (violations first) and counts the
    rest. TraceError when a source cannot be read (truncated, unknown format).
    """
    started = time.monotonic()
    selection = Selection(invariants, exclude)
    selection.check(["messages"])
    state = _State(selection, facts, keep_conversations, keep_points, judge)
    is_paths = isinstance(sources, (list, tuple)) and all(
        isinstance(s, (str, Path)) for s in sources
    )
    paths = [Path(s) for s in sources] if is_paths else []  # type: ignore[arg-type]
    records: Iterable[Record] = read_all(paths, trace_format) if is_paths else sources  # type: ignore[assignment]
    tracker = Tracker(window)
    continuations = 0

    def steps() -> Iterable[Any]:
        for record in records:
            yield from tracker.feed(record)
        yield from tracker.finish()

    for step in steps():
        point = locate(step)
        if point is None:
            continuations += 1
            continue
        found = _judge(state, point)
        state.hold(found)
        if on_point is not None:
            on_point(found)
    tally = tracker.tally
    reading = TraceReading(
        sources=[str(p) for p in paths] if paths else [name or "records"],
        spans=tally.spans,
        log_events=tally.log_events,
        model_calls=tally.model_calls,
        conversations=tally.conversations,
        lineages=tally.lineages,
        pairs=tally.pairs,
        continuations=continuations,
        compactions=state.found,
        skipped=dict(tally.skipped.most_common()),
        conversations_kept=sum(p.before is not None for p in state.points.values()),
        points=list(state.points.values()),
        points_left_out=state.left_out,
    )
    report = _report(
        state,
        reading,
        name or (", ".join(map(str, paths)) or "records"),
        started,
        toolkit_version or installed_version(),
    )
    return report.model_copy(update={"strict_review": strict_review})


def _report(
    state: _State, reading: TraceReading, name: str, started: float, version: str
) -> Report:
    compactions = reading.compactions
    results: list[InvariantResult] = []
    laws = state.laws or {
        law.id: LawTally(law) for law in state.selection.laws("messages", "openai-chat")
    }
    for law in laws.values():
        counts = Counts(
            examples=reading.pairs,
            exercised=law.exercised,
            compactions=compactions,
            unchanged=reading.continuations,
            errored=0,
        )
        results.append(law.result(counts, state.formats))
    errors = [f"{count} call(s) not judged: {reason}" for reason, count in reading.skipped.items()]
    if reading.model_calls == 0:
        errors.append(
            f"{name}: no model call found in the traces (no GenAI or OpenInference "
            "LLM span, no LangSmith llm run, no Langfuse generation)"
        )
    elif reading.pairs == 0:
        errors.append(f"{name}: no two consecutive calls of one agent to compare")
    formats = sorted(state.formats)
    target = TargetReport(
        target=f"traces:{name}",
        view="messages",
        implementation=Implementation(name="compactions in traces", views=["messages"]),
        results=results,
        errors=errors,
        calls={"compacted": compactions, "unchanged": reading.continuations}
        if reading.pairs
        else {},
        format=formats[0] if len(formats) == 1 else ", ".join(formats),
        inferred_facts=list(state.inferred),
        level=level_reached(results),
        traces=reading,
        seconds=round(time.monotonic() - started, 3),
        isolation="recorded",
    )
    return Report(
        toolkit_version=version,
        seed=0,
        profile="audit",
        max_examples=reading.pairs,
        rounds=1,
        complete=True,
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        targets=[target],
    )


__all__ = ["KEEP_CONVERSATIONS", "KEEP_POINTS", "TraceError", "audit_traces", "judge_point"]
