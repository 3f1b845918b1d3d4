"""The wording-runs benchmark counts seeds as its tables say: a faithful fake's clean seeds per
meaning law, a planted kind's seeds caught by a law that should catch it, review apart."""

from __future__ import annotations

from benchmarks.wording_runs import (
    CATCHES,
    MEANING_LAWS,
    Run,
    faithful_table,
    first_violations,
    planted_table,
)
from compactcheck.models.planting import PLANT_KINDS, PlantKind


def _run(planted: bool = True, **verdicts: str) -> Run:
    return Run({law: verdicts.get(law, "pass") for law in MEANING_LAWS}, planted, 1.0)


def test_the_faithful_table_counts_seeds_with_no_violation_of_each_law_and_of_all() -> None:
    runs = {
        "phrasing": [
            _run(),
            _run(constraints_preserved="violation"),
            _run(no_invented_constraints="violation", constraints_preserved="violation"),
        ]
    }
    head, row = faithful_table(runs)
    cells = row.split()
    assert cells[0] == "phrasing"
    # goal, constraints, facts, not_weakened, no_invented, all five
    assert cells[1:7] == ["3/3", "1/3", "3/3", "3/3", "2/3", "1/3"]
    assert "all five" in head


def test_a_planted_kind_is_caught_only_by_its_laws_and_review_stands_apart() -> None:
    runs: dict[PlantKind, list[Run]] = {
        "lapsed": [
            _run(constraints_preserved="violation"),
            # Another law's violation does not catch a lapsed rule.
            _run(no_invented_constraints="violation"),
            _run(constraints_preserved="review"),
            _run(planted=False),
        ]
    }
    _, row = planted_table(runs)
    cells = row.split()
    assert cells[:4] == ["lapsed", "3/4", "1/4", "1/4"]
    assert "constraints_preserved 1; also no_invented_constraints 1" in row


def test_every_planted_kind_names_meaning_laws_that_should_catch_it() -> None:
    assert set(CATCHES) == set(PLANT_KINDS)
    assert all(laws and set(laws) <= set(MEANING_LAWS) for laws in CATCHES.values())


def test_the_first_violation_of_each_law_is_shown_with_its_seed() -> None:
    failing = Run(
        {law: "violation" if law == "constraints_preserved" else "pass" for law in MEANING_LAWS},
        False,
        1.0,
        {"constraints_preserved": "current constraint 'Never push to main' is contradicted"},
    )
    lines = first_violations({"phrasing": [_run(), failing, failing]})
    assert lines == [
        "  phrasing, constraints_preserved, seed 1: current constraint 'Never push to main' is "
        "contradicted"
    ]
