"""Slow compactors in parallel: histories per second of a compactor that waits 100 ms a call,
with one worker and with eight, from the command line, from the pytest plugin under xdist and
from the plugin's own pool of workers (one pytest process).

Every figure is read from a run of the real command, as a user types it, in a fresh folder,
start-up included: the rate is the histories the report says were run over the command's wall
time. The compactor notes the size of each history it is handed
(``benchmarks/slow_compactor.py``), so the median size is printed beside each rate. Verdicts are
compared law by law; the shards of a run with workers draw their own histories (each has its
own seed), so the examples themselves differ.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW = ROOT / "benchmarks" / "slow_compactor.py"
TARGET = f"py:{SLOW}:compact"
# The goal: eight workers at least this many times one worker's histories per second.
GOAL = 6.0
GOAL_WORKERS = 8

# The command as a user types it (the script beside this Python), else as a module.
_SCRIPT = Path(sys.executable).with_name("compactcheck")
_COMPACTCHECK = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "compactcheck"]

_PYTEST_SCRIPT = Path(sys.executable).with_name("pytest")
_PYTEST = [str(_PYTEST_SCRIPT)] if _PYTEST_SCRIPT.is_file() else [sys.executable, "-m", "pytest"]

TESTS = f"""
import pytest


@pytest.mark.compactcheck("{TARGET}", view="messages")
def test_slow(compactcheck_law):
    compactcheck_law.check()
"""


@dataclass(frozen=True)
class Measured:
    """One run of a real command: its rate, the median size handed, and each law's verdict."""

    seconds: float
    histories: int
    size: float
    verdicts: dict[str, str]

    @property
    def rate(self) -> float:
        """Histories judged per second of the whole command."""
        return self.histories / self.seconds


def _measured(
    command: list[str], folder: Path, environment: dict[str, str] | None = None
) -> Measured:
    sizes = folder / "sizes.log"
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(environment or {}), "COMPACT_SIZES": str(sizes)},
    )
    seconds = time.perf_counter() - started
    report = folder / "report.json"
    if not report.is_file():
        raise RuntimeError(f"{' '.join(command[:6])}...: no report\n{done.stderr[-2000:]}")
    [target] = json.loads(report.read_text())["targets"]
    results = target["results"]
    handed = [int(line) for line in sizes.read_text().split()] if sizes.is_file() else [0]
    return Measured(
        seconds,
        max(result["examples"] for result in results),
        statistics.median(handed),
        {result["invariant"]: result["verdict"] for result in results},
    )


def cli(examples: int, workers: int) -> Measured:
    """`compactcheck run` on the slow compactor with ``workers``."""
    with tempfile.TemporaryDirectory() as folder:
        command = [
            *_COMPACTCHECK,
            "run",
            TARGET,
            "--max-examples",
            str(examples),
            "--seed",
            "1",
            "--profile",
            "ci",
            "--no-shrink",
            "--workers",
            str(workers),
            "--json",
            "report.json",
        ]
        return _measured(command, Path(folder))


# Loads only the plugins the run needs, not every plugin installed (see plugin()).
_ONLY_NEEDED = ["-p", "xdist.plugin", "-p", "compactcheck.pytest.plugin"]


def plugin(examples: int, workers: int, *, autoload: bool = True) -> Measured:
    """`pytest` with the plugin on the slow compactor: ``-n workers`` and as many shards.

    Without ``autoload``, pytest loads only xdist and compactcheck
    (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``), as docs/how-to/worker-count.md advises: each xdist
    worker is a whole pytest process, and every plugin installed is imported by each.
    """
    parallel = ["-n", str(workers if workers > 1 else 0), "--compactcheck-shards", str(workers)]
    return _pytest(examples, parallel, autoload=autoload)


def pool(examples: int, workers: int) -> Measured:
    """`pytest` with the plugin on the slow compactor, one pytest process fuzzing it in a pool of
    ``workers`` processes (``--compactcheck-workers``), the pool that `run --workers` uses."""
    return _pytest(examples, ["--compactcheck-workers", str(workers)])


def _pytest(examples: int, parallel: list[str], *, autoload: bool = True) -> Measured:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "test_slow.py").write_text(TESTS)
        command = [
            *_PYTEST,
            *([] if autoload else _ONLY_NEEDED),
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            *parallel,
            "--compactcheck-max-examples",
            str(examples),
            "--compactcheck-seed",
            "1",
            "--compactcheck-json",
            "report.json",
            "test_slow.py",
        ]
        environment = {} if autoload else {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        return _measured(command, Path(folder), environment)


def _row(how: str, one: Measured, many: Measured, judged: bool) -> str:
    ratio = many.rate / one.rate
    same = "equal" if one.verdicts == many.verdicts else "DIFFER"
    # The goal is set for eight workers: a smoke run with fewer is not judged by it.
    verdict = ("met" if ratio >= GOAL else "NOT MET") if judged else "(smoke)"
    return (
        f"{how:<22} {one.rate:>9.2f} {one.size:>5.0f} {many.rate:>9.2f} {many.size:>5.0f} "
        f"{ratio:>6.2f}x  >= {GOAL:g}x {verdict:<8} {same}"
    )


def parallel(examples: int, workers: int = GOAL_WORKERS) -> None:
    """Print histories per second with 1 and ``workers`` workers, the ratio beside the goal
    (set for 8), and whether the verdicts agree."""
    print(
        f"\n## Slow compactors in parallel: a compactor that waits 100 ms a call, {examples} "
        f"histories, seed 1, no shrinking; 1 worker against {workers}"
    )
    print(
        f"{'command':<22} {'1: hist/s':>9} {'size':>5} {f'{workers}: hist/s':>9} {'size':>5} "
        f"{'ratio':>7}  goal     verdict  verdicts"
    )
    judged = workers == GOAL_WORKERS
    print(_row(f"run --workers {workers}", cli(examples, 1), cli(examples, workers), judged))
    print(_row(f"pytest -n {workers}", plugin(examples, 1), plugin(examples, workers), judged))
    print(
        _row(
            f"pytest -n {workers} (-p)",
            plugin(examples, 1, autoload=False),
            plugin(examples, workers, autoload=False),
            judged,
        )
    )
    print(
        _row(f"pytest, {workers} pool workers", pool(examples, 1), pool(examples, workers), judged)
    )
    print(
        f"(rate: histories the report counts over the command's wall time, start-up included; "
        f"size: median messages per history handed to the compactor; pytest -n {workers} runs "
        f"--compactcheck-shards {workers}, against plain pytest with one shard; (-p): only the "
        f"xdist and compactcheck plugins loaded (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1); pool "
        f"workers: one pytest process with --compactcheck-workers {workers} against "
        f"--compactcheck-workers 1; verdicts: law by law, the shards drawing their own "
        f"histories; this host has {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    parallel(200)
