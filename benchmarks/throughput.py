"""End to end: histories judged per second per view, and their efficiency against the ceiling.

A target run (explore only: no shrinking, no coverage passes) against each reference compactor,
as ``run`` explores (no target phase) and with Hypothesis's target phase (as ``fuzz`` explores).
Rates are per second of the process's CPU time. The ceiling of a view is what a run could reach
if everything of ours cost nothing: a bare Hypothesis test that draws as many integer choices
per example as the view's cases drew on average and does nothing else, plus the reference
target's own calls (timed inside the same run, per history). Efficiency is the run's rate over
that ceiling; it is judged against ``EFFICIENCY`` (the rest is our own overhead: projection,
exchange, judging, tallying)."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

import compactcheck.engine.search as search
import compactcheck.targets.registry as registry
from compactcheck.engine.config import RunConfig
from compactcheck.engine.steering import history_size
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.reference_engine.snapshot.compactor import ReferenceCompactor
from compactcheck.targets.registry import resolve

REFERENCES: dict[View, str] = {
    "messages": "reference-messages",
    "snapshot": "reference",
    "session": "reference-session",
}
# The judged figure: end-to-end histories per second over the view's ceiling.
EFFICIENCY = 0.5
# Every figure here is one process's CPU time: all of a run's work is in this process, and on a
# host shared with other work the CPU time of a run and of its ceiling are what stays
# comparable (wall time adds whatever else the host ran meanwhile).
_clock = time.process_time


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


# The performance issue's host, as the issue measured it when it set the floors: a bare
# Hypothesis test drawing one integer ran about 1,900 examples per second, one drawing a list of
# 30 short (role, text) pairs about 230. The same two tests here tell how much faster or
# slower this host runs Hypothesis, so the floors can be read at the issue's speed too.
ISSUE_HOST: dict[str, float] = {"one integer": 1900.0, "30 (role, text) pairs": 230.0}


class _Timed:
    """A compactor callable whose calls are timed into ``spent[0]`` (seconds)."""

    def __init__(self, inner: Callable[..., Any], spent: list[float]) -> None:
        self.inner = inner
        self.spent = spent

    def __call__(self, payload: Any) -> Any:
        started = _clock()
        try:
            return self.inner(payload)
        finally:
            self.spent[0] += _clock() - started


class _TimedGenerated(_Timed):
    """A timed session compactor that keeps the generated-log entry of the one it wraps."""

    def compact_generated(self, payload: Any, generated: Any) -> Any:
        started = _clock()
        try:
            return self.inner.compact_generated(payload, generated)  # type: ignore[attr-defined]
        finally:
            self.spent[0] += _clock() - started


@contextmanager
def _timing_reference(view: View) -> Iterator[list[float]]:
    """Time every call of the view's reference compactor itself while the block runs.

    Wrapped where ``resolve`` builds the target, so the run hands it the same input (and takes
    the same entry) as without the timing.
    """
    spent = [0.0]
    if view == "snapshot":
        original = ReferenceCompactor.compact

        def compact(self: ReferenceCompactor, handed: Any) -> Any:
            started = _clock()
            try:
                return original(self, handed)
            finally:
                spent[0] += _clock() - started

        setattr(ReferenceCompactor, "compact", compact)  # noqa: B010 - timing, then put back
        try:
            yield spent
        finally:
            setattr(ReferenceCompactor, "compact", original)  # noqa: B010
        return
    name = "reference_for" if view == "messages" else "reference_session_compactor"
    build = getattr(registry, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        inner = build(*args, **kwargs)
        kind = _TimedGenerated if hasattr(inner, "compact_generated") else _Timed
        return kind(inner, spent)

    setattr(registry, name, timed)
    try:
        yield spent
    finally:
        setattr(registry, name, build)


@dataclass(frozen=True)
class Measured:
    """One view's end-to-end run: rates, what its cases drew, and its compactor's own time."""

    histories: float
    compactions: float
    choices: float
    size: float
    call_seconds: float


def _run(view: View, examples: int, *, target_phase: bool) -> Measured:
    """Histories and compactions judged per second, mean choices per case, median round size,
    and the reference compactor's own seconds per history."""
    choices: list[int] = []
    sizes: list[int] = []
    steer = getattr(search, "steer")  # noqa: B009 - the runner's own name for it

    def counted(case: Any, outcomes: Any) -> None:
        # Called once per judged case, inside the test: the case's choices are all drawn.
        choices.append(len(current_build_context().data.choices))
        sizes.extend(history_size(outcome) for outcome in outcomes)
        steer(case, outcomes)

    setattr(search, "steer", counted)  # noqa: B010 - counting, then put back
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = RunConfig(
                seed=0,
                max_examples=examples,
                profile="ci",
                corpus_dir=Path(folder),
                shrink=False,
                min_exercised=0,
                seed_given=True,
                target_phase=target_phase,
            )
            with _timing_reference(view) as spent:
                target = resolve(REFERENCES[view])
                try:
                    run = TargetRun(target, view, config, None)
                    started = _clock()
                    for _ in run.steps():
                        pass
                    seconds = _clock() - started
                finally:
                    target.close()
    finally:
        setattr(search, "steer", steer)  # noqa: B010
    compactions = run.judge.tally.statuses["compacted"]
    histories = max(1, run.judge.tally.examples)
    return Measured(
        run.judge.tally.examples / seconds,
        compactions / seconds,
        sum(choices) / max(1, len(choices)),
        statistics.median(sizes) if sizes else 0.0,
        spent[0] / histories,
    )


# One strategy for every draw of the ceiling's test, built once as the generator's are.
_INTEGER = st.integers(0, 1000)


def _ceiling(choices: int, examples: int) -> float:
    """Examples per second of a bare test drawing ``choices`` integers one by one.

    The integers are drawn inside one composite strategy handed to ``@given``, as a run draws
    its cases: drawing through ``st.data()`` instead costs about three times as much per draw
    (each interactive draw is noted for the failure report), a cost no case pays.
    """

    @st.composite
    def drawn(draw: st.DrawFn) -> int:
        return sum(draw(_INTEGER) for _ in range(choices))

    return _bare_rate(drawn(), examples)


_ROLES = st.sampled_from(("user", "assistant"))
_PAIRS = st.lists(st.tuples(_ROLES, st.text(max_size=10)), min_size=30, max_size=30)


def _bare_rate(strategy: st.SearchStrategy[Any], examples: int) -> float:
    """Examples per second of a bare test of one strategy (best of three, after a warm-up)."""

    def once() -> float:
        @settings(
            max_examples=examples,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @seed(0)
        @given(strategy)
        def bare(value: Any) -> None:
            pass

        started = _clock()
        bare()
        return examples / (_clock() - started)

    once()
    return max(once() for _ in range(3))


def host_speed(examples: int = 2_000) -> dict[str, float]:
    """This host's rate on the issue's two bare tests, by name (see ``ISSUE_HOST``)."""
    return {
        "one integer": _bare_rate(st.integers(), examples),
        "30 (role, text) pairs": _bare_rate(_PAIRS, max(50, examples // 4)),
    }


def ceiling(bare: float, call_seconds: float) -> float:
    """Histories per second with nothing of ours: the bare draws, then the compactor's calls."""
    return 1.0 / (1.0 / bare + call_seconds)


def throughput(examples: int, report: Callable[[str], None] = print) -> None:
    """Print histories per second per view, its ceiling and the efficiency judged against it."""
    report(
        f"\n## End to end: histories judged per second ({examples} examples per view, seed 0, "
        "no shrinking), against the ceiling"
    )
    report(
        f"{'view':<9} {'histories/s':>11} {'size':>5} {'compactions/s':>13} {'with target':>23} "
        f"{'choices':>8} {'bare/s':>8} {'call ms':>8} {'ceiling':>8} {'efficiency':>10}  "
        f"target (>= {EFFICIENCY})"
    )
    measured: dict[View, Measured] = {}
    for view in REFERENCES:
        run = _run(view, examples, target_phase=False)
        measured[view] = run
        climbed = _run(view, examples, target_phase=True)
        bare = _ceiling(round(run.choices), examples)
        limit = ceiling(bare, run.call_seconds)
        efficiency = run.histories / limit
        report(
            f"{view:<9} {run.histories:>11.1f} {run.size:>5.0f} {run.compactions:>13.1f} "
            f"{climbed.histories:>8.1f} {climbed.compactions:>8.1f} {climbed.size:>5.0f} "
            f"{run.choices:>8.1f} {bare:>8.1f} {run.call_seconds * 1000:>8.2f} {limit:>8.1f} "
            f"{efficiency:>10.2f}  {_verdict(efficiency >= EFFICIENCY)}"
        )
    session, messages = measured["session"], measured["messages"]
    report(
        f"session view beside the messages view: {session.histories:.1f} histories/s (median "
        f"size {session.size:.0f} events) against {messages.histories:.1f} (median size "
        f"{messages.size:.0f} messages), {session.histories / messages.histories:.2f}x: "
        f"target at least 1x, {_verdict(session.histories >= messages.histories)}"
    )
    report(
        "(histories/s: the runner as `run` explores; size: the median number of messages, "
        "events or log records a round handed the target; compactions/s: the rounds it judged per "
        "second (a history holds up to --rounds compactions); with target: histories/s, "
        "compactions/s and size with Hypothesis's target phase, as `fuzz` explores; choices: mean "
        "choices drawn per case; bare/s: a bare Hypothesis test drawing that many integers per "
        "example and nothing else, best of three; call ms: the reference compactor's own calls "
        "per history, timed inside the run; ceiling: 1 / (1 / bare + call); efficiency: "
        "histories/s over the ceiling; every rate per second of this process's CPU time)"
    )


if __name__ == "__main__":
    throughput(300)
