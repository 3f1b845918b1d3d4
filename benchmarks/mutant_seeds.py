"""Mutants over several seeds: how soon each is caught and how small its witness shrinks.

One seed's mutant table (``benchmarks/run``) moves with any change to what is drawn; the mean
over seeds is what a change to the generator is judged by. Not part of ``benchmarks/run``:

    .venv/bin/python -m benchmarks.mutant_seeds --seeds 0-9 [--no-target-phase] [--jobs 2]
        [--max-examples 100] [--only PREFIX ...]

Each (mutant, seed) run is deterministic, so ``--jobs`` (mutants spread over processes) changes
the seconds, never a figure of the table.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from compactcheck.engine.config import RunConfig
from compactcheck.engine.target_run import TargetRun
from compactcheck.reference_engine.mutants import Mutant
from compactcheck.targets.registry import all_mutants, resolve


def _seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-", 1)
        return list(range(int(low), int(high) + 1))
    return [int(part) for part in text.split(",")]


def mutant_config(
    mutant: Mutant, seed: int, max_examples: int, corpus: Path, *, target_phase: bool = False
) -> RunConfig:
    """How a mutant is run against the law it breaks: until that law breaks, at most
    ``max_examples`` histories, on input a provider accepts unless its bug needs other input."""
    return RunConfig(
        seed=seed,
        max_examples=max_examples,
        profile="ci",
        include=(mutant.targets,),
        corpus_dir=corpus,
        stop_when_all_broken=True,
        seed_given=True,
        malformed=mutant.malformed,
        min_exercised=0,
        target_phase=target_phase,
    )


def _rows(
    name: str, seeds: list[int], target_phase: bool, budget: int = 100
) -> list[tuple[int, int, int]]:
    """Per seed that caught the mutant: histories until detection, shrunk size, witness items."""
    mutant = all_mutants()[name]
    rows: list[tuple[int, int, int]] = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in seeds:
            target = resolve(f"mutant:{mutant.name}")
            config = mutant_config(mutant, seed, budget, Path(folder), target_phase=target_phase)
            run = TargetRun(target, mutant.view, config, None)
            try:
                run.search.explore()
                detection = run.search.detections.get(mutant.targets)
                if detection is None:
                    continue
                law = run.judge.laws[0]
                run.search.shrink(law)
                failure = run.judge.failures[law.id]
                witness = len(failure.finding.violations[0].witness)
                rows.append((detection.examples, failure.size, witness))
            finally:
                target.close()
    return rows


def first_detections(max_examples: int, names: list[str] | None) -> None:
    """For every mutant: histories and seconds until its law first broke, and the shrunk size."""
    print(f"\n## Mutants: first detection of the targeted law (seed 0, up to {max_examples})")
    print(
        f"{'mutant':<38} {'law':<30} {'examples':>8} {'seconds':>8} "
        f"{'found':>6} {'shrunk':>6} {'ratio':>6} {'witness':>7}"
    )
    chosen = [m for m in sorted(all_mutants().values(), key=lambda m: m.name)]
    missed: list[str] = []
    if names:
        chosen = [m for m in chosen if m.name in names]
    with tempfile.TemporaryDirectory() as folder:
        for mutant in chosen:
            target = resolve(f"mutant:{mutant.name}")
            config = mutant_config(mutant, 0, max_examples, Path(folder))
            run = TargetRun(target, mutant.view, config, None)
            try:
                run.search.explore()
                detection = run.search.detections.get(mutant.targets)
                if detection is None:
                    print(f"{mutant.name:<38} {mutant.targets:<30} {'not found':>8}")
                    missed.append(mutant.name)
                    continue
                law = run.judge.laws[0]
                run.search.shrink(law)
                failure = run.judge.failures[law.id]
                witness = len(failure.finding.violations[0].witness)
            finally:
                target.close()
            ratio = failure.size / detection.size if detection.size else 1.0
            print(
                f"{mutant.name:<38} {mutant.targets:<30} {detection.examples:>8} "
                f"{detection.seconds:>8.2f} {detection.size:>6} {failure.size:>6} "
                f"{ratio:>6.2f} {witness:>7}"
            )
    print("(found/shrunk: events or messages in the failing round before and after shrinking)")
    print(
        f"caught within {max_examples}: {len(chosen) - len(missed)} of {len(chosen)}"
        + (f"; missed: {', '.join(missed)}" if missed else "")
    )
    print("(run with --malformed: " + ", ".join(m.name for m in chosen if m.malformed) + ")")


def main() -> None:
    """Print, per mutant, the mean detection, shrunk size and witness over the seeds."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", default="0-4", help="e.g. 0-9 or 0,3,7")
    parser.add_argument("--no-target-phase", action="store_true")
    parser.add_argument(
        "--max-examples", type=int, default=100, help="histories per (mutant, seed) at most"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes (mutants spread over them)")
    parser.add_argument("--only", nargs="*", default=None, help="mutant names or name prefixes")
    options = parser.parse_args()
    seeds = _seeds(options.seeds)
    started = time.monotonic()
    print(
        f"## Mutants over seeds {options.seeds} (up to {options.max_examples} histories each"
        f"{', no target phase' if options.no_target_phase else ''})"
    )
    print(f"{'mutant':<38} {'found at':>8} {'shrunk':>7} {'witness':>7} {'missed':>6}")
    names = sorted(
        name
        for name in all_mutants()
        if options.only is None or any(name.startswith(prefix) for prefix in options.only)
    )
    measure = partial(
        _rows,
        seeds=seeds,
        target_phase=not options.no_target_phase,
        budget=options.max_examples,
    )
    if options.jobs > 1:
        with ProcessPoolExecutor(options.jobs) as pool:
            tables = list(pool.map(measure, names))
    else:
        tables = [measure(name) for name in names]
    shrunk_total = witness_total = found_total = 0.0
    missed_total = 0
    for name, rows in zip(names, tables, strict=True):
        missed = len(seeds) - len(rows)
        missed_total += missed
        if not rows:
            print(f"{name:<38} {'never':>8} {'':>7} {'':>7} {missed:>6}")
            continue
        found = statistics.mean(row[0] for row in rows)
        shrunk = statistics.mean(row[1] for row in rows)
        witness_mean = statistics.mean(row[2] for row in rows)
        found_total += found
        shrunk_total += shrunk
        witness_total += witness_mean
        print(f"{name:<38} {found:>8.1f} {shrunk:>7.1f} {witness_mean:>7.1f} {missed:>6}")
    print(
        f"total of the means: found at {found_total:.1f}, shrunk {shrunk_total:.1f}, witness "
        f"{witness_total:.1f}; missed: {missed_total} of {len(seeds) * len(names)} runs "
        f"({time.monotonic() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
