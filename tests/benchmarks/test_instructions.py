"""The instruction counter: the same program counts the same each time, and more work counts more.

A search of the reference compactors counts the same from run to run as well (seed 0 draws the
same histories); that takes a minute under valgrind, so it is checked by hand (BENCHMARKS.md)
rather than here, where a small program shows the counter itself is steady.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from benchmarks.instructions import instructions

pytestmark = pytest.mark.skipif(
    shutil.which("valgrind") is None, reason="valgrind is not installed (.ci/run installs it)"
)


def _loop(times: int) -> list[str]:
    return [sys.executable, "-S", "-c", f"total = 0\nfor i in range({times}):\n    total += i * i"]


def test_a_program_counts_the_same_each_time_and_more_work_counts_more(tmp_path: Path) -> None:
    first = instructions(_loop(100_000), tmp_path)
    again = instructions(_loop(100_000), tmp_path)
    more = instructions(_loop(300_000), tmp_path)
    # 200,000 more iterations are millions of instructions; two counts of one program differ
    # by a sliver of that.
    assert abs(first - again) < (more - first) / 100
    assert more > first


def test_a_failing_program_is_a_one_line_exit_not_a_count(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="failed in"):
        instructions([sys.executable, "-S", "-c", "raise SystemExit(3)"], tmp_path)
