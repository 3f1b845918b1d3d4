"""Instructions per history under cachegrind: a measure of work that host noise cannot move.

On the shared hosts this project is developed on, two runs of the same code read 10 % to 50 %
apart in histories per second, so a trim of a few per cent cannot be judged by timing, even
turn about. Counting the instructions the interpreter executes can: the same seed draws the same
histories, so the count is the same from run to run (``PYTHONHASHSEED`` fixed), whatever else
the host is doing. It counts work, not time (cache misses and memory stalls are not in it), so
it judges a change that removes work; a change meant to make the same work faster still needs
the clock (``benchmarks.versus``).

    .venv/bin/python -m benchmarks.instructions --views session
    git worktree add ../before HEAD~1
    .venv/bin/python -m benchmarks.instructions --against ../before --views session

Each count is one search of the view's reference compactor as ``benchmarks.throughput`` runs it
(seed 0, no shrinking, no target phase) in a process of its own under ``valgrind --tool=cachegrind
--cache-sim=no``, at two sizes; the difference divided by the difference in histories is the
cost of a history, without the start-up and imports both sizes pay. Needs valgrind (``apt-get
install valgrind``); about 30 s per count for the default sizes, the two checkouts' counts run
side by side on two cores.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.versus import is_checkout, measure_command

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(command: list[str], cwd: Path) -> int:
    """Instructions executed by ``command`` (run in ``cwd``, hash seed fixed) under cachegrind."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={Path(folder) / 'out'}",
                *command,
            ],
            cwd=cwd,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
            check=False,
        )
    found = _REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"instructions: {command[0]} failed in {cwd}: {tail[0]}")
    return int(found.group(1).replace(",", ""))


def count(checkout: Path, view: str, examples: int) -> int:
    """Instructions executed by one search of ``examples`` histories of ``view`` in ``checkout``.

    The search ``benchmarks.versus`` times; its warm-up is the same at both sizes, so it drops
    out of ``per_history``'s difference with the start and the imports.
    """
    return instructions(measure_command(view, examples), checkout)


def per_history(checkout: Path, view: str, small: int, large: int) -> float:
    """Instructions per history: the two sizes' difference over the difference in histories."""
    with ThreadPoolExecutor(2) as pool:
        low, high = pool.map(lambda size: count(checkout, view, size), (small, large))
    return (high - low) / (large - small)


def main() -> None:
    """Print each view's instructions per history, here and in another checkout if given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--views", nargs="*", default=["messages", "snapshot", "session"])
    parser.add_argument(
        "--sizes",
        nargs=2,
        type=int,
        default=[20, 80],
        metavar=("SMALL", "LARGE"),
        help="histories of the two searches; a search begins with its smallest histories, so "
        "sizes under 20 read a history as cheap (session at 2 and 6: 5 M against 41 M)",
    )
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.exit(2, "instructions: valgrind is not installed (apt-get install valgrind)\n")
    small, large = options.sizes
    if not 0 < small < large:
        parser.error("--sizes needs 0 < SMALL < LARGE")
    here = Path(__file__).resolve().parent.parent
    other = options.against.resolve() if options.against else None
    if other is not None and not is_checkout(other):
        parser.error(f"{other} is not a compactcheck checkout with benchmarks/throughput.py")
    print(f"{'view':<9} {'this':>14}" + (f" {'other':>14} {'ratio':>6}" if other else ""))
    for view in options.views:
        this = per_history(here, view, small, large)
        line = f"{view:<9} {this:>14,.0f}"
        if other is not None:
            before = per_history(other, view, small, large)
            line += f" {before:>14,.0f} {this / before:>5.3f}x"
        print(line)
    print(f"(instructions per history: searches of {large} and {small} histories, seed 0)")


if __name__ == "__main__":
    main()
