"""Whole `compactcheck run` commands timed: over several mutants with 1 and with 2 worker
processes, and the example Python compactor in-process, in an isolated worker and as a harness.

Run: benchmarks/run --only workers isolation
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.protocol import PYTHON_HARNESS
from compactcheck.targets.registry import all_mutants


def _burn(count: int) -> int:
    total = 0
    for number in range(count):
        total += number * number
    return total


def _ceiling() -> float:
    """How much faster two processes burn pure-Python CPU than one: this machine's own limit."""
    from concurrent.futures import ProcessPoolExecutor

    work = 5_000_000
    start = time.perf_counter()
    for _ in range(2):
        _burn(work)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_burn, [1, 1]))
        start = time.perf_counter()
        list(pool.map(_burn, [work, work]))
        two = time.perf_counter() - start
    return one / two


def _timed_run(*arguments: str) -> tuple[float, dict[str, Any]]:
    """Wall seconds of `compactcheck run ARGUMENTS --profile ci --no-shrink` in a fresh folder
    (its corpus kept there), and its JSON report."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "compactcheck",
                "run",
                *arguments,
                "--profile",
                "ci",
                "--no-shrink",
                "--corpus",
                str(Path(folder) / "corpus"),
                "--json",
                str(out),
            ],
            cwd=folder,
            capture_output=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        return seconds, json.loads(out.read_text())


def workers(examples: int) -> None:
    """Wall time of one CLI run over several targets with 1 and with 2 worker processes."""
    chosen = sorted(all_mutants())[::4]
    print(
        f"\n## Workers: `compactcheck run` over {len(chosen)} mutants, {examples} examples, "
        "no shrink"
    )
    print(f"{'workers':>7} {'seconds':>8} {'speed-up':>9}  verdicts")
    base = 0.0
    for count in (1, 2):
        seconds, data = _timed_run(
            *(f"mutant:{name}" for name in chosen),
            "--max-examples",
            str(examples),
            "--workers",
            str(count),
        )
        verdicts = sum(
            result["verdict"] == "violation"
            for target in data["targets"]
            for result in target["results"]
        )
        base = base or seconds
        print(f"{count:>7} {seconds:>8.1f} {base / seconds:>8.2f}x  {verdicts} violations")
    print(
        f"control: a pure-Python CPU loop runs {_ceiling():.2f}x faster in 2 processes than in 1 "
        "on this machine now (the ceiling for the ratio above)"
    )


def isolation(examples: int) -> None:
    """Wall time of one `compactcheck run` of the example Python compactor: in-process, in an
    isolated worker (the default for py:), and as a cmd: harness subprocess."""
    name = f"py:{PYTHON_HARNESS}:compact_messages"
    print(
        f"\n## Isolation: `compactcheck run` of the example Python compactor, {examples} "
        "examples, no shrink: in-process, isolated worker process, cmd: harness"
    )
    print(f"{'how':<11} {'seconds':>8} {'histories/s':>12} {'vs in-process':>14}  calls")
    rows = (
        ("in-process", [name, "--in-process"]),
        ("isolated", [name]),
        ("subprocess", [f"cmd:{sys.executable} {PYTHON_HARNESS}"]),
    )
    base = 0.0
    for how, target_options in rows:
        seconds, data = _timed_run(
            *target_options, "--max-examples", str(examples), "--min-exercised", "0"
        )
        [target] = data["targets"]
        base = base or seconds
        calls = sum(target["calls"].values())
        print(
            f"{how:<11} {seconds:>8.1f} {examples / seconds:>12.1f} {base / seconds:>13.3f}x  "
            f"{calls}"
        )
    print(
        "(seconds include starting compactcheck; the same seed draws the same histories, so "
        "the calls match; the ratios are the whole run's speed)"
    )
