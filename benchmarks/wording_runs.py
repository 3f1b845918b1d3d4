"""The run-level figure a user feels: a faithful model-worded summariser over many seeds, and a
summariser with one planted loss at a time.

Each run is `compactcheck run` through the library (``compactcheck.fuzz``, in this process, no
shrinking, a fresh corpus folder per run so that no run replays another's findings) of a
built-in summarising target, ``pydantic-ai:summarizing`` by default: its summary holds
everything its model writes, so with the ``echo`` fake it breaks no law, and every violation
with another fake is that fake's wording read as a loss, or its planted loss caught. For each
faithful fake (``echo``, the control; ``wording``; ``phrasing``, each seeded with the run's
seed), how many seeds end with no violation of each meaning law; for each planted kind, how
many seeds plant it at all and how many catch it with a violation of a law that should. The
planting fake plants in the last constraint it can change (``last``): the target keeps the
system prompt as it is beside the summary, so a change to a system prompt's rule would leave
the rule stated, unchanged, in the output.

    .venv/bin/python -m benchmarks.wording_runs                      # 20 seeds of 200 examples
    .venv/bin/python -m benchmarks.wording_runs --seeds 3 --examples 50
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import compactcheck
from compactcheck.models import EchoModel, Model, PhrasingModel, PlantingModel, WordingModel
from compactcheck.models.planting import PLANT_KINDS, PlantKind

TARGET = "pydantic-ai:summarizing"
# The laws that judge what a summary did to the facts.
MEANING_LAWS = (
    "goal_preserved",
    "constraints_preserved",
    "facts_preserved",
    "constraints_not_weakened",
    "no_invented_constraints",
)
FAITHFUL: dict[str, Callable[[int], Model]] = {
    "echo": lambda seed: EchoModel(),
    "wording": WordingModel,
    "phrasing": PhrasingModel,
}
# The laws that should catch each planted kind: a violation of any of them catches it. A number
# may be planted in the goal (when no constraint holds one), and a goal's id is a must-keep fact.
CATCHES: dict[PlantKind, tuple[str, ...]] = {
    "polarity": ("constraints_preserved",),
    "number": ("constraints_preserved", "goal_preserved", "facts_preserved"),
    "relax": ("constraints_not_weakened",),
    "stale": ("constraints_preserved",),
    "drop": ("constraints_preserved",),
    "invent": ("no_invented_constraints",),
    "lapsed": ("constraints_preserved",),
    "narrow": ("constraints_not_weakened", "constraints_preserved"),
    "hedge": ("constraints_not_weakened",),
    "member": ("constraints_preserved",),
}
# The verdict a law gets where its rulings are unsure (issue 46): counted apart where it shows.
REVIEW = "review"


@dataclass(frozen=True)
class Run:
    """One seed's run with one fake: each law's verdict, whether a loss was planted, seconds."""

    verdicts: dict[str, str]
    planted: bool
    seconds: float
    because: dict[str, str] = field(default_factory=dict)  # each violated law's because line


def run_once(model: Model, seed: int, examples: int, folder: Path, target: str = TARGET) -> Run:
    """``compactcheck run TARGET`` with ``model``, one seed, its corpus kept in ``folder``."""
    start = time.perf_counter()
    report = compactcheck.fuzz(
        target,
        model=model,
        max_examples=examples,
        seed=seed,
        shrink=False,
        corpus_dir=folder,
    )
    seconds = time.perf_counter() - start
    verdicts = {result.invariant: str(result.verdict) for result in report.targets[0].results}
    planted = bool(model.planted) if isinstance(model, PlantingModel) else False
    because = {
        result.invariant: result.because
        for result in report.targets[0].results
        if result.verdict == "violation" and result.because
    }
    return Run(verdicts, planted, seconds, because)


def _planting(kind: PlantKind) -> Callable[[int], Model]:
    """A maker of planting fakes of ``kind`` that plant in the last constraint they can."""

    def make(seed: int) -> Model:
        del seed
        return PlantingModel(kind, last=True)

    return make


def _runs(
    make: Callable[[int], Model], seeds: Sequence[int], examples: int, root: Path, name: str
) -> list[Run]:
    return [run_once(make(seed), seed, examples, root / f"{name}-{seed}") for seed in seeds]


def _cell(count: int, total: int) -> str:
    return f"{count}/{total}"


def faithful_table(runs: dict[str, list[Run]]) -> list[str]:
    """Per faithful fake: seeds with no violation of each meaning law, and of all five."""
    short = [law.replace("_preserved", "").replace("constraints_", "") for law in MEANING_LAWS]
    lines = [
        f"{'fake':<10}" + "".join(f"{name[:13]:>14}" for name in short) + "   all five  seconds"
    ]
    for fake, done in runs.items():
        total = len(done)
        cells = [sum(run.verdicts.get(law) != "violation" for run in done) for law in MEANING_LAWS]
        clean = sum(
            all(run.verdicts.get(law) != "violation" for law in MEANING_LAWS) for run in done
        )
        reviews = sum(REVIEW in run.verdicts.values() for run in done)
        seconds = sum(run.seconds for run in done)
        row = f"{fake:<10}" + "".join(f"{_cell(cell, total):>14}" for cell in cells)
        row += f"{_cell(clean, total):>11}{seconds:>9.0f}"
        lines.append(row + (f"  ({reviews} with a law in review)" if reviews else ""))
    return lines


def first_violations(runs: dict[str, list[Run]], width: int = 220) -> list[str]:
    """Per fake and meaning law it violated: the first seed's because line, cut to ``width``."""
    lines = []
    for fake, done in runs.items():
        for law in MEANING_LAWS:
            seed = next((at for at, run in enumerate(done) if law in run.because), None)
            if seed is not None:
                said = " ".join(done[seed].because[law].split())
                cut = said if len(said) <= width else said[: width - 3] + "..."
                lines.append(f"  {fake}, {law}, seed {seed}: {cut}")
    return lines


def _laws(counter: Counter[str]) -> str:
    return ", ".join(f"{law} {count}" for law, count in counter.most_common()) or "-"


def planted_table(runs: dict[PlantKind, list[Run]]) -> list[str]:
    """Per planted kind: seeds that planted it, seeds that caught it, and by which laws."""
    lines = [
        f"{'kind':<10}{'planted':>8}{'caught':>8}{'review':>8}  caught by (law: seeds)"
        "; also violated"
    ]
    for kind, done in runs.items():
        total = len(done)
        catching = CATCHES[kind]
        caught = sum(any(run.verdicts.get(law) == "violation" for law in catching) for run in done)
        review = sum(
            any(run.verdicts.get(law) == REVIEW for law in catching)
            and not any(run.verdicts.get(law) == "violation" for law in catching)
            for run in done
        )
        by = Counter(
            law for run in done for law in catching if run.verdicts.get(law) == "violation"
        )
        also = Counter(
            law
            for run in done
            for law in MEANING_LAWS
            if law not in catching and run.verdicts.get(law) == "violation"
        )
        planted = sum(run.planted for run in done)
        lines.append(
            f"{kind:<10}{_cell(planted, total):>8}{_cell(caught, total):>8}"
            f"{_cell(review, total):>8}  {_laws(by)}; also {_laws(also)}"
        )
    return lines


def _verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def wording_runs(
    seeds: int = 20,
    examples: int = 200,
    fakes: Sequence[str] = tuple(FAITHFUL),
    kinds: Sequence[PlantKind] = PLANT_KINDS,
) -> None:
    """The benchmark section: both tables and the two targets of issue 46 beside them."""
    chosen = list(range(seeds))
    print(
        f"\n## Wording runs: `compactcheck run {TARGET}` with a fake model, {seeds} seeds "
        f"(0-{seeds - 1}) of {examples} examples, no shrinking"
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        faithful = {name: _runs(FAITHFUL[name], chosen, examples, root, name) for name in fakes}
        print(f"faithful fakes: seeds (of {seeds}) ending with no violation of each meaning law")
        print("\n".join(faithful_table(faithful)))
        print("the first violation of each law, per fake:")
        print("\n".join(first_violations(faithful)) or "  none")
        if "phrasing" in faithful:
            clean = sum(
                all(run.verdicts.get(law) != "violation" for law in MEANING_LAWS)
                for run in faithful["phrasing"]
            )
            print(
                f"target: the phrasing fake ends with no violation on {seeds} of {seeds} seeds: "
                f"{clean} of {seeds}, {_verdict(clean == seeds)}"
            )
        planted = {kind: _runs(_planting(kind), chosen, examples, root, kind) for kind in kinds}
    print(f"\nplanted losses: seeds (of {seeds}) whose run catches the kind planted")
    print("\n".join(planted_table(planted)))
    short = []
    for kind, done in planted.items():
        caught = sum(
            any(run.verdicts.get(law) in ("violation", REVIEW) for law in CATCHES[kind])
            for run in done
        )
        if caught < seeds:
            unplanted = sum(not run.planted for run in done)
            short.append(
                f"{kind} {caught}" + (f" (not planted on {unplanted})" if unplanted else "")
            )
    print(
        f"target: each planted kind caught (a violation, or review) on {seeds} of {seeds} seeds: "
        f"{_verdict(not short)}" + (f"; caught on fewer: {', '.join(short)}" if short else "")
    )
    print(
        "(planted: seeds whose run planted the kind at least once; caught: seeds with a "
        "violation of a law that should catch it (CATCHES); review: seeds where such a law was "
        "in review and none was violated; also violated: the other meaning laws' violations on "
        "the same runs; seconds: the fake's runs together)"
    )


def main() -> None:
    """Run the section with its sizes from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds 0..N-1 (default 20)")
    parser.add_argument("--examples", type=int, default=200, help="examples per run (200)")
    parser.add_argument("--fakes", nargs="*", choices=list(FAITHFUL), default=list(FAITHFUL))
    parser.add_argument("--kinds", nargs="*", choices=list(PLANT_KINDS), default=list(PLANT_KINDS))
    options = parser.parse_args()
    wording_runs(options.seeds, options.examples, options.fakes, options.kinds)


if __name__ == "__main__":
    main()
