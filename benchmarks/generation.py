"""Generated histories per second, per view, at default size: `python benchmarks/generation.py`."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from compactcheck.strategies import (
    message_histories,
    scenarios,
    session_histories,
    snapshot_histories,
)

VIEWS: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "scenario": scenarios,
    "snapshot": snapshot_histories,
    "messages": message_histories,
    "session": session_histories,
}


def generation_only(count: int) -> settings:
    """Settings that draw ``count`` examples and do nothing else (no database, no shrinking)."""
    return settings(
        max_examples=count,
        database=None,
        phases=(Phase.generate,),
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def rate(strategy: st.SearchStrategy[Any], count: int) -> tuple[int, float]:
    """How many examples Hypothesis generated, and how many per second (generation only)."""
    drawn = 0

    @seed(0)
    @generation_only(count)
    @given(strategy)
    def consume(example: Any) -> None:
        nonlocal drawn
        drawn += 1

    start = time.perf_counter()
    consume()
    elapsed = time.perf_counter() - start
    return drawn, drawn / elapsed


def generation(examples: int) -> None:
    """Histories generated per second, per view, against bare scenarios."""
    print(f"\n## Generation: histories per second ({examples} examples per view, seed 0)")
    print(f"{'view':<10} {'per second':>11} {'vs scenario':>12}")
    # Warm up: the first Hypothesis run of a process pays for imports and caches.
    rate(VIEWS["scenario"](), 10)
    base = 0.0
    for name, strategy in VIEWS.items():
        _, per_second = rate(strategy(), examples)
        base = base or per_second
        print(f"{name:<10} {per_second:>11.1f} {per_second / base:>11.2f}x")


def main() -> None:
    """Print one line per view: examples drawn and histories per second."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--views", nargs="*", default=list(VIEWS))
    options = parser.parse_args()
    for name in options.views:
        drawn, per_second = rate(VIEWS[name](), options.examples)
        print(f"{name:<9} {drawn:>6} histories  {per_second:8.1f} per second")


if __name__ == "__main__":
    main()
