"""What a run tells its consumers, in the order it happens.

A run is a stream of these events (``Engine.run``): the command line shows progress and writes
reports from it, the pytest plugin takes its verdicts from it, workers ship theirs back to the
parent, campaigns fold it iteration by iteration. Events from inside one Hypothesis search
(examples judged, a law broken) are delivered when that search returns, in the order they
happened; the corpus entry of a violation is on disk before its event is delivered.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from compactcheck.invariants import View
from compactcheck.report.model import Report, TargetReport


@dataclass(frozen=True)
class RunStarted:
    """The run's units of work are known: (target, view) pairs and how finely they were cut."""

    seed: int
    units: tuple[tuple[str, View], ...]
    workers: int = 1
    # Shards each (target, view) was cut into to keep the workers busy (1: not cut).
    parts: int = 1
    jobs: int = 1
    # How many shards run at once (lanes: threads of the workers, or of this process).
    in_flight: int = 1


@dataclass(frozen=True)
class TargetStarted:
    """One target on one view (one shard of it, with workers) starts exploring."""

    target: str
    view: View
    max_examples: int
    shard: str = ""


@dataclass(frozen=True)
class ExampleJudged:
    """One generated history went through every round; what each call did."""

    target: str
    view: View
    example: int
    statuses: tuple[str, ...]


@dataclass(frozen=True)
class ViolationFound:
    """A law broke for the first time; its unshrunk witness is already in the corpus."""

    target: str
    view: View
    invariant: str
    because: str
    example: int
    corpus_file: Path | None


@dataclass(frozen=True)
class Shrunk:
    """A broken law's witness was shrunk (or the search ran out of time: ``complete`` False)."""

    target: str
    view: View
    invariant: str
    history_size: int
    corpus_file: Path | None
    complete: bool


@dataclass(frozen=True)
class Note:
    """A line of progress worth showing (more histories for coverage, a shrink that stopped)."""

    target: str
    view: View
    text: str


@dataclass(frozen=True)
class TargetFinished:
    """One target on one view (or one shard of it) is done; ``interrupted`` when cut short."""

    report: TargetReport
    shard: str = ""
    # The seed this target was fuzzed with (a shard's own, with shards).
    seed: int = 0
    examples: int = 0
    # Law id -> its corpus entry, and entries this run wrote and later gave up (campaigns).
    corpus: Mapping[str, Path] = field(default_factory=dict)
    discarded: tuple[Path, ...] = ()
    interrupted: bool = False
    # The job's place in the run's plan, so that shards can be folded in a repeatable order.
    job: int = 0


@dataclass(frozen=True)
class Interrupted:
    """Ctrl-C or SIGTERM stopped the run; the report that follows covers what was done."""

    signal: str


@dataclass(frozen=True)
class RunFinished:
    """The run's report: complete, or the partial one of an interrupted run."""

    report: Report


Event = (
    RunStarted
    | TargetStarted
    | ExampleJudged
    | ViolationFound
    | Shrunk
    | Note
    | TargetFinished
    | Interrupted
    | RunFinished
)


def describe(event: Event) -> str:
    """One line about an event, for a progress display ("" for events not worth a line)."""
    match event:
        case TargetStarted(target=target, view=view, max_examples=examples, shard=shard):
            where = f" shard {shard}" if shard else ""
            return f"{target} [{view}]{where}: exploring {examples} histories"
        case ViolationFound(target=target, view=view, invariant=law):
            return f"{target} [{view}]: {law} broken, shrinking later"
        case Shrunk(target=target, view=view, invariant=law, history_size=size):
            return f"{target} [{view}]: {law} shrunk to a history of {size}"
        case Note(target=target, view=view, text=text):
            return f"{target} [{view}]: {text}"
        case TargetFinished(report=report, shard=shard):
            where = f" shard {shard}" if shard else ""
            return f"{report.target} [{report.view}]{where}: done"
        case Interrupted(signal=signal):
            return f"interrupted by {signal}: writing the partial report"
    return ""
