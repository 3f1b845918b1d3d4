"""Shrinking does not wait out again the timeouts that exploring already waited out.

A hunt draws exploring's histories again on its way to the failure it shrinks; for a compactor
that hangs on long histories, each of those used to cost the whole call timeout once more, for
every broken law (minutes for a run that explored in seconds). New histories that hang while
shrinking are bounded too.
"""

from __future__ import annotations

from pathlib import Path

from compactcheck.engine.search import HUNT_TIMEOUTS
from tests.compactcheck.engine.test_verdicts import only, run

# Hangs past any short timeout on long histories, noting each time it does; on shorter ones it
# compacts, losing the goal on those of 9 or 10 messages.
COMPACTOR = """
import time
from pathlib import Path

def compact(messages):
    if len(messages) > 10:
        with open(Path(__file__).with_name("hangs.log"), "a") as log:
            log.write("hang\\n")
        time.sleep(30)
    if len(messages) > 8:
        return messages[-3:]
    return messages[:1] + messages[-3:] if len(messages) > 4 else messages
"""
# The call law's witness is a hang; checking whether it reproduces runs it this many times.
RERUNS = 3


def test_shrinking_waits_out_few_timeouts_beyond_those_of_exploring(tmp_path: Path) -> None:
    (tmp_path / "hangs_when_long.py").write_text(COMPACTOR)
    code, report, console = run(
        f"py:{tmp_path / 'hangs_when_long.py'}:compact",
        tmp_path,
        "--timeout",
        "0.1",
        "--max-examples",
        "15",
        "--min-exercised",
        "0",
        "--seed",
        "4",
        "--invariants",
        "goal_preserved",
    )
    assert code == 1, console
    target = only(report)
    goal = next(r for r in target.results if r.invariant == "goal_preserved")
    assert goal.verdict == "violation", goal
    assert goal.counterexample is not None
    explored = target.calls["timed out"]
    assert explored >= 3, target.calls
    hangs = len((tmp_path / "hangs.log").read_text().split())
    # Each way a law broke in has its own hunt and its own re-runs.
    ways = sum(1 + len(r.other_ways) for r in target.results if r.counterexample)
    # Before, the hunt for the goal's witness waited out exploring's timeouts again: 90 hangs
    # where exploring met 8.
    assert hangs <= explored + ways * (RERUNS + HUNT_TIMEOUTS), (hangs, ways, target.calls)
