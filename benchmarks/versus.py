"""End-to-end rates of this checkout against another one, interleaved on one host.

Hosts of this kind differ by 2x from one session to the next, and a rate moves by 10 % within
an hour, so a change is judged by the ratio of two codes run turn about, not by a rate against
a figure from another day:

    git worktree add ../before de863ce
    .venv/bin/python -m benchmarks.versus ../before --views messages session --runs 4

Each run is one process per checkout (its own imports, this interpreter), alternating which goes
first; each prints the histories per second of ``benchmarks.throughput`` after a short warm-up.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

_MEASURE = """
import sys
sys.path.insert(0, ".")
from benchmarks.throughput import _run
_run({view!r}, 30, target_phase=False)
measured = _run({view!r}, {examples}, target_phase=False)
print(getattr(measured, "histories", None) or measured[0])
"""


def measure_command(view: str, examples: int) -> list[str]:
    """The command that runs one search of ``view`` (after a warm-up) in the checkout it runs in.

    It imports that checkout's code (run it with the checkout as the working folder) and prints
    the histories per second of ``benchmarks.throughput``.
    """
    return [sys.executable, "-c", _MEASURE.format(view=view, examples=examples)]


def is_checkout(path: Path) -> bool:
    """Whether ``path`` is a compactcheck checkout these comparisons can run in."""
    return (path / "benchmarks" / "throughput.py").is_file()


def rate(checkout: Path, view: str, examples: int) -> float:
    """Histories per second of one run of ``view`` in ``checkout``."""
    done = subprocess.run(
        measure_command(view, examples),
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.split()[-1])


def main() -> None:
    """Print each view's median rate in both checkouts and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("other", type=Path, help="the checkout to compare against")
    parser.add_argument("--views", nargs="*", default=["messages", "snapshot", "session"])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--examples", type=int, default=600)
    options = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    other = options.other.resolve()
    if not is_checkout(other):
        parser.error(f"{other} is not a compactcheck checkout with benchmarks/throughput.py")
    print(f"{'view':<9} {'other':>8} {'this':>8} {'ratio':>6}  runs (other | this)")
    for view in options.views:
        rates: dict[Path, list[float]] = {other: [], here: []}
        for number in range(options.runs):
            order = (other, here) if number % 2 == 0 else (here, other)
            for checkout in order:
                rates[checkout].append(rate(checkout, view, options.examples))
        before, after = statistics.median(rates[other]), statistics.median(rates[here])
        runs = " ".join(f"{value:.0f}" for value in rates[other])
        runs += " | " + " ".join(f"{value:.0f}" for value in rates[here])
        print(f"{view:<9} {before:>8.1f} {after:>8.1f} {after / before:>5.2f}x  {runs}")
    print(
        f"(histories per second, median of {options.runs} interleaved runs of {options.examples})"
    )


if __name__ == "__main__":
    main()
