"""What a session case costs around the reference compactor's own call, part by part.

On generated histories (seed 0, each in a drawn mode): the harness's exchange less the
compactor's call, the call itself, the laws, and the pass over the generator's events that the
log check and the surface fold share, beside the two passes it replaces (a fold, then an
adoption for the log check). Every figure is CPU time per history, best of five.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from compactcheck.harness.session import SessionDriver
from compactcheck.invariants.laws.session import LAWS
from compactcheck.invariants.session import SessionEvent
from compactcheck.invariants.session.checker import LogChecker
from compactcheck.invariants.session.exchange import MODES, Mode, SurfaceFolder, adopt_prefix
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.strategies import Projected, project_session
from compactcheck.strategies.facts import facts_of_truth
from compactcheck.strategies.session_view import SessionHistory, session_histories

_clock = time.process_time


def _drawn(count: int) -> list[tuple[Projected[SessionHistory], Mode]]:
    drawn: list[tuple[Projected[SessionHistory], Mode]] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @seed(0)
    @given(session_histories(), st.sampled_from(MODES))
    def collect(projected: Projected[SessionHistory], mode: Mode) -> None:
        drawn.append((projected, mode))

    collect()
    return drawn


def _best(work: Callable[[], float | None], repeats: int = 5) -> float:
    """The least CPU seconds of ``repeats`` runs (what ``work`` returns, else its own time).

    The collector is held off while a run is timed: its pauses land in whichever part runs
    then, and the parts are compared with each other.
    """
    times: list[float] = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            started = _clock()
            own = work()
            times.append(own if own is not None else _clock() - started)
        finally:
            gc.enable()
    return min(times)


class _Timed:
    """The reference session compactor, its calls timed into ``spent``."""

    def __init__(self) -> None:
        self.inner = reference_session_compactor()
        self.spent = 0.0

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        started = _clock()
        try:
            return self.inner(payload)
        finally:
            self.spent += _clock() - started

    def compact_generated(self, payload: dict[str, Any], generated: Any) -> dict[str, Any]:
        started = _clock()
        try:
            return self.inner.compact_generated(payload, generated)
        finally:
            self.spent += _clock() - started


def _two_passes(events: tuple[SessionEvent, ...]) -> None:
    folder = SurfaceFolder()
    folder.feed(events)
    checker = LogChecker()
    for event in events:
        checker.adopt(event)


def session_exchange_costs(count: int, report: Callable[[str], None] = print) -> None:
    """Print the per-history cost of each part of a session case around the reference's call."""
    drawn = _drawn(count)
    histories = [(project_session(projected.scenario), mode) for projected, mode in drawn]
    sizes = [len(history.events) for history, _ in histories]
    report(
        f"\n## A session case around the reference's call ({len(histories)} generated "
        f"histories, median {statistics.median(sizes):.0f} events, seed 0)"
    )
    compactor = _Timed()
    driver = SessionDriver(compactor)
    judged: list[Any] = []

    def exchanges() -> float:
        # Projected afresh for each run, untimed: the node prices cached per event are not
        # reused from the run before.
        fresh = [(project_session(p.scenario), facts_of_truth(p.scenario.truth)) for p, _ in drawn]
        compactor.spent = 0.0
        judged.clear()
        started = _clock()
        for (history, facts), (_, mode) in zip(fresh, drawn, strict=True):
            judged.append(driver.one(1, history.events, mode, facts, history.generated))
        spent.append(compactor.spent)
        return _clock() - started - compactor.spent

    spent: list[float] = []
    around = _best(exchanges)
    calls = min(spent)

    def laws() -> None:
        for outcome in judged:
            if outcome.status == "compacted":
                for law in LAWS:
                    law.check(outcome.before, outcome.after, outcome.facts)

    def one_pass() -> None:
        for history, _ in histories:
            adopt_prefix(history.events)

    def two_passes() -> None:
        for history, _ in histories:
            _two_passes(history.events)

    judging = _best(laws)
    one = _best(one_pass)
    two = _best(two_passes)
    per = 1000.0 / len(histories)
    report(
        f"exchange less the call {around * per:.3f} ms, the reference's call {calls * per:.3f} "
        f"ms, the laws {judging * per:.3f} ms (per history)"
    )
    report(
        f"generator's events adopted for the log check and folded: one pass {one * per:.3f} ms, "
        f"a fold then an adoption {two * per:.3f} ms: {two / one:.2f}x"
    )


if __name__ == "__main__":
    session_exchange_costs(200)
