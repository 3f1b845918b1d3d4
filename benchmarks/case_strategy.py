"""The case strategy alone: a bare ``@given`` of each view's cases, with an empty body, against the
bare test the throughput ceiling is made of, and where the difference goes.

``empty/s`` is what Hypothesis reaches drawing a view's cases and doing nothing with them;
``bare/s`` is the ceiling's bare test for as many choices (``benchmarks/throughput.py``). Their
ratio bounds a run's efficiency before anything is judged. A case costs ``1 / empty/s``:
``bare ms`` of it is what any test drawing that many integers pays, ``ours ms`` is our own Python
in the strategy (building the scenario from the drawn values, timed by replaying each case's
recorded draws through it without Hypothesis), and ``spans ms`` is the rest: Hypothesis's own
work for the shape of our draws (nested composites, mapped and sampled draws, the spans it
records for each, which also steer its mutation and shrinking).

    .venv/bin/python -m benchmarks.case_strategy [--examples 300]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.control import current_build_context
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.strategies import SearchStrategy
from hypothesis.strategies._internal.core import CompositeStrategy
from hypothesis.strategies._internal.lazy import unwrap_strategies
from hypothesis.strategies._internal.strategies import MappedStrategy

from benchmarks.throughput import REFERENCES, _bare_rate, _ceiling
from compactcheck.harness.cases import cases

_clock = time.process_time
# Hypothesis's own unwrapping of a lazy strategy (untyped there), the one its draws use.
_unwrapped: Callable[[SearchStrategy[Any]], SearchStrategy[Any]] = unwrap_strategies
# A draw not finished (its case overran or was discarded): its case is left out of the replay.
_UNFINISHED = object()


class _Draw:
    """One recorded draw: its depth, the (unwrapped) strategy drawn from, the value it gave."""

    __slots__ = ("depth", "strategy", "value")

    def __init__(self, depth: int, strategy: SearchStrategy[Any]) -> None:
        self.depth = depth
        self.strategy = strategy
        self.value: Any = _UNFINISHED


def _recorded(strategy: SearchStrategy[Any], examples: int) -> tuple[float, list[list[_Draw]]]:
    """Mean choices per case, and every draw of each case in the order the draws started."""
    choices: list[int] = []
    draws: list[list[_Draw]] = []
    original = ConjectureData.draw

    def draw(data: ConjectureData, drawn: Any, label: Any = None, observe_as: Any = None) -> Any:
        if data.depth == 0:
            draws.append([])
        entry = _Draw(data.depth, _unwrapped(drawn))
        draws[-1].append(entry)
        entry.value = original(data, drawn, label, observe_as)
        return entry.value

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @seed(0)
    @given(strategy)
    def counted(case: Any) -> None:
        choices.append(len(current_build_context().data.choices))

    setattr(ConjectureData, "draw", draw)  # noqa: B010 - recording, then put back
    try:
        counted()
    finally:
        setattr(ConjectureData, "draw", original)  # noqa: B010
    finished = [case for case in draws if case and case[0].value is not _UNFINISHED]
    return sum(choices) / len(choices), finished


def _replayer(case: list[_Draw]) -> Callable[[], Any]:
    """A function that builds the case again from its recorded draws, without Hypothesis: a
    composite's or mapped draw's own function runs on the values of the draws inside it."""

    def build() -> Any:
        position = 0

        def draw(strategy: SearchStrategy[Any]) -> Any:
            nonlocal position
            entry = case[position]
            position += 1
            recorded = entry.strategy
            if isinstance(recorded, CompositeStrategy):
                return recorded.definition(draw, *recorded.args, **recorded.kwargs)
            if isinstance(recorded, MappedStrategy):
                return recorded.pack(draw(recorded.mapped_strategy))
            # A leaf (integers, sampled_from, a unique list): its value, past what it drew.
            while position < len(case) and case[position].depth > entry.depth:
                position += 1
            return entry.value

        return draw(case[0].strategy)

    return build


def ours_ms(draws: list[list[_Draw]]) -> float:
    """Milliseconds of our own Python per case: the cases built again from their draws (best of
    three, after a pass that fills the strategy's caches as a run's earlier cases do)."""
    builds = [_replayer(case) for case in draws]
    for build in builds:
        build()
    best = float("inf")
    for _ in range(3):
        started = _clock()
        for build in builds:
            build()
        best = min(best, _clock() - started)
    return 1000 * best / len(builds)


def case_strategy(examples: int, report: Callable[[str], None] = print) -> None:
    """Print, per view, the empty-body rate of its cases beside the bare rate, and the split."""
    report(
        f"\n## Case strategy: a bare @given of each view's cases, empty body ({examples} "
        "examples, seed 0), against the bare test of the ceiling"
    )
    report(
        f"{'view':<9} {'choices':>8} {'empty/s':>8} {'bare/s':>8} {'ratio':>6} "
        f"{'case ms':>8} {'bare ms':>8} {'ours ms':>8} {'spans ms':>9}"
    )
    for view in REFERENCES:
        strategy = cases(3, view)
        choices, draws = _recorded(strategy, examples)
        empty = _bare_rate(strategy, examples)
        bare = _ceiling(round(choices), examples)
        ours = ours_ms(draws)
        case, floor = 1000 / empty, 1000 / bare
        report(
            f"{view:<9} {choices:>8.1f} {empty:>8.1f} {bare:>8.1f} {empty / bare:>6.2f} "
            f"{case:>8.3f} {floor:>8.3f} {ours:>8.3f} {case - floor - ours:>9.3f}"
        )
    report(
        "(empty/s: cases per second of a test that draws the view's cases and does nothing, "
        "best of three; bare/s: the ceiling's bare test drawing as many integers; ratio: "
        "empty/s over bare/s; case ms = bare ms + ours ms + spans ms, per case: ours is our "
        "Python building the case from its draws, spans is Hypothesis's work for the shape of "
        "our draws; per second of this process's CPU time)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=300)
    case_strategy(parser.parse_args().examples)
