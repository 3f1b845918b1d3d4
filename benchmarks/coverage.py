"""Every law of our three references, exercised in every one of ten seeds at the ci profile.

Run: .venv/bin/python -m benchmarks.coverage [--seeds 0-9] [--max-examples 100]
Prints, per view and law, how often each seed exercised it and its verdict; exits 1 when a
reference does not pass with every applicable law exercised at least --min-exercised times.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.invariants import Budget, View
from compactcheck.report.model import TargetReport
from compactcheck.targets.registry import resolve

# The messages reference twice: its size laws apply only under a declared budget.
BUDGET = Budget(limit=8000, counter="approx_tokens")
REFERENCES: tuple[tuple[str, View, Budget | None], ...] = (
    ("reference", "snapshot", None),
    ("reference-session", "session", None),
    ("reference-messages", "messages", None),
    ("reference-messages", "messages", BUDGET),
)


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def run(
    name: str,
    view: View,
    budget: Budget | None,
    seed: int,
    max_examples: int,
    minimum: int,
    folder: Path,
) -> TargetReport:
    """One reference on one seed, as `compactcheck run NAME --profile ci --seed SEED` would."""
    config = RunConfig(
        seed=seed,
        max_examples=max_examples,
        profile="ci",
        corpus_dir=folder / f"{name}-{seed}-{budget is not None}",
        budget=budget,
        seed_given=True,
        min_exercised=minimum,
    )
    target = resolve(name, view=view, budget=budget)
    try:
        return run_target(target, view, config)
    finally:
        target.close()


def main() -> int:
    """Run every reference on every seed; print the exercised counts; 1 if any seed falls short."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=_seeds, default=_seeds("0-9"), help="e.g. 0-9")
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--min-exercised", type=int, default=5)
    options = parser.parse_args()
    seeds: list[int] = options.seeds
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for name, view, budget in REFERENCES:
            started = time.monotonic()
            reports = {
                seed: run(
                    name,
                    view,
                    budget,
                    seed,
                    options.max_examples,
                    options.min_exercised,
                    Path(folder),
                )
                for seed in seeds
            }
            seconds = time.monotonic() - started
            declared = f" --budget {budget.limit} --counter {budget.counter}" if budget else ""
            heading = f"{name}{declared} [{view}]"
            print(f"\n## {heading}: exercised per seed ({len(seeds)} seeds, {seconds:.1f} s)")
            print(f"{'law':<32}" + "".join(f"{seed:>7}" for seed in seeds) + "  verdicts")
            laws = [result.invariant for result in reports[seeds[0]].results]
            for law in laws:
                row = [
                    next(r for r in reports[seed].results if r.invariant == law) for seed in seeds
                ]
                verdicts = sorted({result.verdict for result in row})
                print(
                    f"{law:<32}"
                    + "".join(f"{result.exercised:>7}" for result in row)
                    + f"  {','.join(verdicts)}"
                )
                for seed, result in zip(seeds, row, strict=True):
                    short = result.verdict == "pass" and result.exercised < options.min_exercised
                    if result.verdict not in ("pass", "skipped") or short:
                        failed.append(
                            f"{name} seed {seed}: {law} {result.verdict}: {result.because}"
                        )
            examples = [reports[seed].results[0].examples for seed in seeds]
            print(f"{'histories run':<32}" + "".join(f"{count:>7}" for count in examples))
    for line in failed:
        print(f"FAIL {line}")
    print("every law exercised in every seed" if not failed else f"{len(failed)} shortfall(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
