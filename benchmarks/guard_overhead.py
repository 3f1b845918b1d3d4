"""The runtime guard's cost: the reference compactor guarded and unguarded, side by side.

Run: benchmarks/run --only guard

On 50-, 200- and 1,000-message histories of a coding agent's run (about 1 KB of text per
message, ``benchmarks.messages_judgement.history``), the reference message compactor is timed
alone, then wrapped by ``compactcheck.guard`` judging every call (``sample=1.0``, facts
inferred) and one call in ten (``sample=0.1``). The ratio guarded / unguarded is the figure
to read; absolute times vary with the machine.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import compactcheck
from benchmarks.messages_judgement import best_ms, history
from compactcheck.invariants import dump_messages
from compactcheck.invariants.laws.messages import message_chars
from compactcheck.reference_engine.messages import reference_messages


def _compactor(size: int, before: list[Any]) -> Callable[[list[dict[str, Any]]], Any]:
    chars = sum(message_chars(message) for message in before)
    budget = compactcheck.Budget(limit=math.ceil(chars / 4) // 4, counter="approx_tokens")
    return reference_messages(max_messages=max(16, size // 4), budget=budget)


def _mean_ms(work: Callable[[], object], calls: int) -> float:
    """The mean time of ``work`` over ``calls`` calls, in milliseconds.

    A sampling guard checks some calls and not others: a best-of timing would pick a round
    that checked none, so its cost is the mean over enough calls to hold the sampled ones. The
    collector is paused, as ``best_ms`` pauses it: a full pass over what earlier sections of the
    run left alive would land in one mean and not in the other (it read 0.06x once).
    """
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.perf_counter()
        for _ in range(calls):
            work()
        return (time.perf_counter() - started) * 1000 / calls
    finally:
        if enabled:
            gc.enable()


def guard_overhead(sizes: list[int]) -> None:
    """Print the per-call times and the guarded / unguarded ratios."""
    print("\n## Runtime guard: reference compactor guarded vs unguarded (best of 7, ms per call)")
    print(f"{'messages':>9} {'KB':>6} {'unguarded':>10} {'every call':>11} {'ratio':>6} "
          f"{'1 in 10':>8} {'ratio':>6}")  # fmt: skip
    for size in sizes:
        parsed = history(size)
        data = dump_messages(tuple(parsed))
        plain = _compactor(size, parsed)
        every = compactcheck.guard(plain, on_violation="log")
        sampled = compactcheck.guard(plain, on_violation="log", sample=0.1, seed=0)
        every(data)
        assert every.stats.violated == 0, "the reference compactor broke a law"
        alone = best_ms(partial(plain, data))
        guarded = best_ms(partial(every, data))
        calls = 200 if size <= 200 else 60
        alone_mean = _mean_ms(partial(plain, data), calls)
        tenth = _mean_ms(partial(sampled, data), calls)
        kb = sum(message_chars(m) for m in parsed) / 1000
        print(
            f"{size:>9} {kb:>6.0f} {alone:>10.2f} {guarded:>11.2f} {guarded / alone:>6.2f} "
            f"{tenth:>8.2f} {tenth / alone_mean:>6.2f}"
        )
    print(
        "(ratio: guarded time / unguarded time in the same run; every call: best of 7; 1 in 10: "
        "sample=0.1, the mean over 60-200 calls against the unguarded mean over as many; the "
        "collector paused while timing, in all)"
    )
