"""Four seeds of one broken compactor into one crash corpus: does it keep every witness found?

Not part of ``benchmarks/run``:

    .venv/bin/python -m benchmarks.corpus_seeds [--seeds 1-4] [--max-examples 30]
        [--target mutant:messages-keep-last-n]

Each seed is one ``compactcheck run`` (a process of its own, profile ci, so no example database
feeds one run's failures to the next), run three ways: each into a corpus of its own, all into
one corpus one after another, and all into one corpus side by side (every process started at
once). A witness is what failed on which input (target, view, law, round, the round's input),
read from the entries' content, so the figures do not depend on how entries are named. The
corpus keeps every finding when the two shared corpora hold every witness the separate ones do;
the replay of the shared corpus is counted too (one row per entry).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TARGET = "mutant:messages-keep-last-n"


@dataclass(frozen=True)
class Figures:
    """The distinct witnesses each way of running the seeds kept, and the replay's rows."""

    separate: frozenset[str]
    sequential: frozenset[str]
    side_by_side: frozenset[str]
    replayed: int

    def lines(self) -> list[str]:
        """The figures as the benchmark prints them."""
        kept = "every witness kept" if self.keeps_all else "witnesses lost"
        return [
            f"separate corpora: {len(self.separate)} distinct",
            f"one corpus sequential: {len(self.sequential)}"
            f" (of them, {len(self.sequential & self.separate)} of the separate corpora's)",
            f"side by side: {len(self.side_by_side)}"
            f" (of them, {len(self.side_by_side & self.separate)} of the separate corpora's)",
            f"replay of the sequential corpus: {self.replayed} rows; {kept}",
        ]

    @property
    def keeps_all(self) -> bool:
        """Whether both shared corpora hold every witness the separate ones hold."""
        return self.separate <= self.sequential and self.separate <= self.side_by_side


def witnesses(corpus: Path) -> frozenset[str]:
    """The distinct witnesses a corpus folder holds, by content."""
    found: set[str] = set()
    for path in corpus.glob("*.json") if corpus.is_dir() else []:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = ("target", "view", "invariant", "round", "input")
        found.add(json.dumps([data[key] for key in keys], sort_keys=True))
    return frozenset(found)


def _command(target: str, seed: int, max_examples: int, corpus: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "compactcheck",
        "run",
        target,
        "--view",
        "messages",
        "--profile",
        "ci",
        "--seed",
        str(seed),
        "--max-examples",
        str(max_examples),
        "--corpus",
        str(corpus),
    ]


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def _check(done: subprocess.CompletedProcess[str]) -> None:
    # 1: the mutant broke laws, as it must for anything to be kept.
    if done.returncode != 1:
        raise SystemExit(f"a run exited {done.returncode}, not 1:\n{done.stdout[-2000:]}")


def measure(folder: Path, seeds: list[int], max_examples: int, target: str = TARGET) -> Figures:
    """Run the seeds three ways under ``folder``; what each way kept."""
    separate: set[str] = set()
    for seed in seeds:
        corpus = folder / f"seed-{seed}"
        _check(_run(_command(target, seed, max_examples, corpus)))
        separate |= witnesses(corpus)
    sequential = folder / "sequential"
    for seed in seeds:
        _check(_run(_command(target, seed, max_examples, sequential)))
    shared = folder / "side-by-side"
    started = [
        subprocess.Popen(
            _command(target, seed, max_examples, shared),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for seed in seeds
    ]
    for process in started:
        out, _ = process.communicate()
        _check(subprocess.CompletedProcess(process.args, process.returncode, out, ""))
    shown = _run([sys.executable, "-m", "compactcheck", "replay", str(sequential)])
    heads = [line.split() for line in shown.stdout.splitlines() if line.startswith("Replay of")]
    rows = int(heads[0][2]) if heads else 0
    return Figures(frozenset(separate), witnesses(sequential), witnesses(shared), rows)


def _seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main() -> None:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=_seeds, default=_seeds("1-4"))
    parser.add_argument("--max-examples", type=int, default=30)
    parser.add_argument("--target", default=TARGET)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = measure(Path(folder), arguments.seeds, arguments.max_examples, arguments.target)
    print(f"{arguments.target}, seeds {arguments.seeds}, max-examples {arguments.max_examples}")
    for line in figures.lines():
        print(line)


if __name__ == "__main__":
    main()
