"""End to end: histories judged per second per view, beside the ceiling of a bare Hypothesis test.

A target run (explore only: no shrinking, no coverage passes) against each reference compactor,
as ``run`` explores (no target phase) and with Hypothesis's target phase (as ``fuzz`` explores).
The ceiling is a bare Hypothesis test that draws as many integer choices per example as the
view's cases drew on average, and does nothing else: no history can be judged faster than its
choices are drawn.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context

import compactcheck.engine.search as search
from compactcheck.engine.config import RunConfig
from compactcheck.engine.steering import history_size
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.targets.registry import resolve

REFERENCES: dict[View, str] = {
    "messages": "reference-messages",
    "snapshot": "reference",
    "session": "reference-session",
}
# This issue's floor and goal, in histories per second.
FLOOR: dict[View, int] = {"messages": 250, "snapshot": 150, "session": 150}
GOAL = 500


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


# The performance issue's host, as the issue measured it when it set the floors: a bare
# Hypothesis test drawing one integer ran about 1,900 examples per second, one drawing a list of
# 30 short (role, text) pairs about 230. The same two tests here tell how much faster or
# slower this host runs Hypothesis, so the floors can be read at the issue's speed too.
ISSUE_HOST: dict[str, float] = {"one integer": 1900.0, "30 (role, text) pairs": 230.0}


def _run(view: View, examples: int, *, target_phase: bool) -> tuple[float, float, float, float]:
    """Histories and compactions judged per second, mean choices per case, median round size."""
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
            target = resolve(REFERENCES[view])
            try:
                run = TargetRun(target, view, config, None)
                started = time.perf_counter()
                for _ in run.steps():
                    pass
                seconds = time.perf_counter() - started
            finally:
                target.close()
    finally:
        setattr(search, "steer", steer)  # noqa: B010
    compactions = run.tally.statuses["compacted"]
    return (
        run.tally.examples / seconds,
        compactions / seconds,
        sum(choices) / max(1, len(choices)),
        statistics.median(sizes) if sizes else 0.0,
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

        started = time.perf_counter()
        bare()
        return examples / (time.perf_counter() - started)

    once()
    return max(once() for _ in range(3))


def host_speed(examples: int = 2_000) -> dict[str, float]:
    """This host's rate on the issue's two bare tests, by name (see ``ISSUE_HOST``)."""
    return {
        "one integer": _bare_rate(st.integers(), examples),
        "30 (role, text) pairs": _bare_rate(_PAIRS, max(50, examples // 4)),
    }


def throughput(examples: int, report: Callable[[str], None] = print) -> None:
    """Print histories per second per view, with and without the target phase, and the ceiling."""
    report(
        f"\n## End to end: histories judged per second ({examples} examples per view, seed 0, "
        "no shrinking)"
    )
    report(
        f"{'view':<9} {'histories/s':>11} {'compactions/s':>13} {'size':>5} {'with target':>23} "
        f"{'choices':>8} {'ceiling':>8} {'of ceiling':>10} {'floor':>6} {'goal':>5}"
    )
    rates: dict[View, float] = {}
    for view in REFERENCES:
        rate, compactions, choices, size = _run(view, examples, target_phase=False)
        rates[view] = rate
        climbed, climbed_compactions, _, climbed_size = _run(view, examples, target_phase=True)
        ceiling = _ceiling(round(choices), examples)
        report(
            f"{view:<9} {rate:>11.1f} {compactions:>13.1f} {size:>5.0f} {climbed:>8.1f} "
            f"{climbed_compactions:>8.1f} {climbed_size:>5.0f} "
            f"{choices:>8.1f} {ceiling:>8.1f} {rate / ceiling:>9.2f}x {FLOOR[view]:>6} {GOAL:>5}"
        )
    speed = host_speed()
    factors = {name: speed[name] / ISSUE_HOST[name] for name in ISSUE_HOST}
    # The smaller factor gives the lower floors: a NOT MET below is no artefact of the reading.
    factor = min(factors.values())
    report(
        "host: "
        + "; ".join(
            f"a bare test drawing {name} runs {speed[name]:,.0f}/s here against "
            f"{ISSUE_HOST[name]:,.0f}/s on the issue's host ({factors[name]:.2f}x)"
            for name in ISSUE_HOST
        )
    )
    report(
        "floors as the issue states them: "
        + ", ".join(
            f"{view} {FLOOR[view]} ({_verdict(rates[view] >= FLOOR[view])})" for view in REFERENCES
        )
    )
    report(
        f"floors at this host's speed ({factor:.2f}x the issue's, the smaller factor): "
        + ", ".join(
            f"{view} {FLOOR[view] * factor:.0f} "
            f"({_verdict(rates[view] >= FLOOR[view] * factor)}: {rates[view]:.0f})"
            for view in REFERENCES
        )
    )
    report(
        "(histories/s: the runner as `run` explores; compactions/s: the rounds it judged per "
        "second (a history holds up to --rounds compactions); with target: both figures with "
        "Hypothesis's target phase, as `fuzz` explores; size: the median number of messages, "
        "events or log records a round handed the target; choices: mean choices drawn per case; "
        "ceiling: a bare Hypothesis test drawing that many integers per example and nothing else, "
        "best of three)"
    )


if __name__ == "__main__":
    throughput(300)
