"""The engine's event stream: what a consumer sees, in order, for a violation, a shrink and an
interrupt (every front end is built on these sequences)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, follow
from compactcheck.engine.events import (
    Event,
    ExampleJudged,
    Interrupted,
    Note,
    RunFinished,
    RunStarted,
    Shrunk,
    TargetFinished,
    TargetStarted,
    ViolationFound,
)
from compactcheck.targets.calls import Calls
from tests.signals import SELF_INTERRUPTING, ctrl_c_heard  # noqa: F401 (a fixture)

# A mutant of the reference messages compactor that splits parallel tool results.
MUTANT = "mutant:messages-cut-parallel-results"


def _kinds(events: list[Event]) -> list[str]:
    """The event kinds in order, runs of ExampleJudged folded into one."""
    kinds: list[str] = []
    for event in events:
        kind = type(event).__name__
        if not (kind == "ExampleJudged" and kinds and kinds[-1] == kind):
            kinds.append(kind)
    return kinds


def _run(engine: Engine, name: str, handle: object = None) -> list[Event]:
    seen: list[Event] = []

    def keep(event: Event) -> None:
        seen.append(event)
        if callable(handle):
            handle(event)

    [target] = engine.open([name], "messages")
    try:
        follow(engine.run([target], "messages"), keep)
    finally:
        target.close()
    return seen


def test_a_violation_is_found_written_shrunk_and_reported_in_that_order(tmp_path: Path) -> None:
    config = RunConfig(
        seed=0,
        max_examples=60,
        profile="ci",
        corpus_dir=tmp_path / "corpus",
        include=("tool_pairing",),
        min_exercised=0,
    )
    on_disk: list[bool] = []

    def check_disk(event: Event) -> None:
        if isinstance(event, ViolationFound):
            # The witness is on disk before anyone hears of it.
            on_disk.append(event.corpus_file is not None and event.corpus_file.is_file())

    events = _run(Engine(config), MUTANT, check_disk)
    assert _kinds(events) == [
        "RunStarted",
        "TargetStarted",
        "ExampleJudged",
        "ViolationFound",
        "ExampleJudged",
        "Note",
        "Shrunk",
        "TargetFinished",
        "RunFinished",
    ]
    assert on_disk == [True]
    started = events[0]
    assert isinstance(started, RunStarted)
    assert started.units == ((MUTANT, "messages"),)
    [found] = [e for e in events if isinstance(e, ViolationFound)]
    [shrunk] = [e for e in events if isinstance(e, Shrunk)]
    [note] = [e for e in events if isinstance(e, Note)]
    assert found.invariant == shrunk.invariant == "tool_pairing"
    assert note.text == "shrinking tool_pairing"
    assert shrunk.complete
    judged = [e for e in events if isinstance(e, ExampleJudged)]
    # Every example is told once, numbered in order.
    assert [e.example for e in judged] == list(range(1, len(judged) + 1))
    assert found.example in {e.example for e in judged}
    finished = events[-2]
    assert isinstance(finished, TargetFinished)
    assert not finished.interrupted
    assert finished.examples == len(judged)
    assert finished.corpus["tool_pairing"] == shrunk.corpus_file
    last = events[-1]
    assert isinstance(last, RunFinished)
    assert last.report.complete
    verdicts = {r.invariant: r.verdict for r in last.report.targets[0].results}
    assert verdicts == {"call_answered": "pass", "tool_pairing": "violation"}
    example = last.report.targets[0].results[1].counterexample
    assert example is not None
    assert example.history_size == shrunk.history_size <= found_size(events)


def found_size(events: list[Event]) -> int:
    """The history size of the unshrunk witness (the shrunk one may only be smaller)."""
    [finished] = [e for e in events if isinstance(e, TargetFinished)]
    example = finished.report.results[1].counterexample
    assert example is not None
    return example.history_size


@pytest.mark.usefixtures("ctrl_c_heard")
def test_a_signal_ends_the_stream_with_the_partial_report(tmp_path: Path) -> None:
    module = tmp_path / "busy.py"
    module.write_text(SELF_INTERRUPTING)
    config = RunConfig(seed=1, max_examples=10_000, profile="ci", corpus_dir=tmp_path / "c")
    # In-process: the compactor plays the user, whose Ctrl-C reaches this process.
    events = _run(Engine(config, calls=Calls(in_process=True)), f"py:{module}:compact")
    kinds = _kinds(events)
    assert kinds[:3] == ["RunStarted", "TargetStarted", "ExampleJudged"]
    assert kinds[-3:] == ["TargetFinished", "Interrupted", "RunFinished"]
    finished, interrupted, last = events[-3:]
    assert isinstance(finished, TargetFinished)
    assert finished.interrupted
    assert isinstance(interrupted, Interrupted)
    assert interrupted.signal == "SIGINT"
    assert isinstance(last, RunFinished)
    assert not last.report.complete
    # Stopped at the call that heard it, not at the end of the budget.
    assert 1 <= finished.examples <= 5


def test_an_interrupt_in_a_consumer_is_passed_into_the_run(tmp_path: Path) -> None:
    config = RunConfig(seed=0, max_examples=30, profile="ci", corpus_dir=tmp_path / "c")
    events: list[Event] = []

    def impatient(event: Event) -> None:
        events.append(event)
        if isinstance(event, TargetStarted):
            # A second Ctrl-C raises wherever the consumer is: the run still reports.
            raise KeyboardInterrupt

    [target] = Engine(config).open(["reference-messages"], "messages")
    try:
        report = follow(Engine(config).run([target], "messages"), impatient)
    finally:
        target.close()
    assert _kinds(events) == [
        "RunStarted",
        "TargetStarted",
        "TargetFinished",
        "Interrupted",
        "RunFinished",
    ]
    assert not report.complete
    assert report.targets[0].errors[0].startswith("interrupted")


def test_two_targets_with_workers_tell_each_job_and_one_merged_report(tmp_path: Path) -> None:
    config = RunConfig(seed=3, max_examples=20, profile="ci", corpus_dir=tmp_path / "c")
    engine = Engine(config, workers=2)
    targets = engine.open(["reference-messages", MUTANT], "messages")
    for target in targets:
        target.close()
    events: list[Event] = []
    report = follow(engine.run(targets, "messages"), events.append)
    started = events[0]
    assert isinstance(started, RunStarted)
    assert started.jobs == 2
    assert started.parts == 1
    finished = [e for e in events if isinstance(e, TargetFinished)]
    assert sorted(e.job for e in finished) == [0, 1]
    assert isinstance(events[-1], RunFinished)
    assert report.complete
    assert [t.target for t in report.targets] == ["reference-messages", MUTANT]
