"""How long `./dev test` takes on this machine, stage by stage, with mypy's cache and without.

The goal is the whole of `./dev test` in at most 10 minutes on a 2-core machine. A fresh clone
has no mypy cache, a developer's checkout has one: both are timed, mypy's cache kept in a
temporary folder so that the checkout's own is left alone. Each stage runs as `./dev test` runs
it (the same commands, from the project root, with this interpreter's environment); mypy in one
process, without a cache, is timed beside its two workers, and counted in no total.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 10 * 60
# As `./dev test` runs them.
MYPY_WORKERS = ("--num-workers", "2")
PYTEST = ("-m", "pytest", "-n", "auto", "--dist", "worksteal")
# Timed for comparison only: not a stage of `./dev test`.
COMPARISON = "mypy, no cache, 1 process"


@dataclass(frozen=True)
class Stage:
    """One timed command of `./dev test`."""

    name: str
    seconds: float
    exit_code: int
    tail: str


def _bin(tool: str) -> str:
    return str(Path(sys.executable).parent / tool)


def suite_environment() -> dict[str, str]:
    """This environment as `./dev test` runs its stages in it: bytecode written (see `dev`)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _timed(name: str, command: list[str], env: dict[str, str] | None = None) -> Stage:
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env=suite_environment() if env is None else env,
    )
    seconds = time.perf_counter() - started
    lines = (done.stdout + done.stderr).strip().splitlines()
    return Stage(name, seconds, done.returncode, lines[-1] if lines else "")


# The site's build as `./dev docs` runs it (warnings are errors).
_STRICT = ("-E", "-W", "--keep-going", "-n", "-q")


def stages() -> list[Stage]:
    """Time every stage of `./dev test`; mypy twice, from an empty cache and then a full one,
    and once more in one process from an empty cache, for comparison."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as alone:
        mypy = [_bin("mypy"), *MYPY_WORKERS, "--cache-dir", cache]
        return [
            _timed("ruff check", [_bin("ruff"), "check", "."]),
            _timed("ruff format --check", [_bin("ruff"), "format", "--check", "."]),
            _timed(COMPARISON, [_bin("mypy"), "--cache-dir", alone]),
            _timed("mypy, no cache", mypy),
            _timed("mypy, cached", mypy),
            _timed("lint-imports", [_bin("lint-imports"), "--no-cache"]),
            _timed(
                "sphinx docs, strict",
                [sys.executable, "-m", "sphinx", *_STRICT, "docs", f"{cache}/site"],
            ),
            # As ./dev test runs it: the site's tests read the site the stage above built.
            _timed(
                "pytest -n auto",
                [sys.executable, *PYTEST, "-q", "-p", "no:cacheprovider"],
                env={**suite_environment(), "COMPACTCHECK_SITE": f"{cache}/site"},
            ),
        ]


def suite_time() -> None:
    """Print each stage's time and exit code, and the totals against the goal."""
    print(f"\n## Suite: `./dev test` stage by stage ({os.cpu_count()} CPU(s))")
    print(f"{'stage':<26} {'seconds':>8} {'exit':>5}  last line")
    done = stages()
    for stage in done:
        print(f"{stage.name:<26} {stage.seconds:>8.1f} {stage.exit_code:>5}  {stage.tail[:90]}")
    seconds = {stage.name: stage.seconds for stage in done}
    shared = sum(s for name, s in seconds.items() if not name.startswith("mypy"))
    if seconds.get(COMPARISON) and seconds.get("mypy, no cache"):
        print(
            f"mypy without a cache, two workers against one process: "
            f"{seconds['mypy, no cache'] / seconds[COMPARISON]:.2f}x the time"
        )
    for label, mypy in (("cached", "mypy, cached"), ("no cache", "mypy, no cache")):
        total = shared + seconds[mypy]
        verdict = "met" if total <= GOAL_SECONDS else "NOT MET"
        print(
            f"total with mypy {label}: {total / 60:.1f} min; goal at most "
            f"{GOAL_SECONDS // 60} min: {verdict}"
        )
    failed = [stage.name for stage in done if stage.exit_code != 0]
    if failed:
        print(f"(a stage failed: {', '.join(failed)}; its time is not the suite's)")
    print(
        "(a fresh clone adds the installs of `./dev test` to the no-cache total; the pytest "
        "stage skips the browser, Redis and HypoFuzz tests where those are not installed, as "
        "its summary line says)"
    )
