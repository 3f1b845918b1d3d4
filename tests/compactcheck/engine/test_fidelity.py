"""Fidelity measures of whole runs: the differential against the reference, and shard merges."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.engine.fidelity import summarised
from compactcheck.invariants import Budget, View
from compactcheck.invariants.fidelity import RoundFidelity, Survival
from compactcheck.report.model import Fidelity, FidelitySide, TargetReport
from compactcheck.scale.fidelity import merged
from compactcheck.targets.registry import resolve


def _run(name: str, view: View, tmp_path: Path, budget: Budget | None = None) -> TargetReport:
    target = resolve(name, budget=budget)
    config = RunConfig(
        seed=0,
        max_examples=40,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        shrink=False,
        budget=budget,
    )
    try:
        return run_target(target, view, config)
    finally:
        target.close()


def test_a_tail_keeper_keeps_less_than_the_reference_on_the_same_inputs(tmp_path: Path) -> None:
    report = _run("mutant:messages-keep-last-n", "messages", tmp_path)
    fidelity = report.fidelity
    assert fidelity is not None
    assert fidelity.reference is not None
    assert fidelity.reference_target == "reference-messages"
    ours, theirs = fidelity.target.overall, fidelity.reference.overall
    # Every input the target compacted was handed to the reference too, and it answered all.
    assert ours.compactions == theirs.compactions == report.calls["compacted"]
    assert theirs.measures["must_keep"].mean == 1.0
    assert ours.measures["must_keep"].mean < 0.9
    assert ours.measures["must_keep"].low == 0.0
    assert sum(r.compactions for r in fidelity.target.rounds) == ours.compactions


def test_the_reference_is_not_compared_with_itself(tmp_path: Path) -> None:
    report = _run("reference-messages", "messages", tmp_path, Budget(limit=2000))
    fidelity = report.fidelity
    assert fidelity is not None
    assert fidelity.reference is None
    assert "this target is the view's reference" in fidelity.reference_note
    assert fidelity.counter == "approx_tokens"
    assert fidelity.target.overall.measures["constraints"].mean == 1.0


@pytest.mark.parametrize(
    ("name", "view"),
    [("mutant:snapshot-drop-oldest-file", "snapshot"), ("mutant:session_cut_by_count", "session")],
)
def test_the_other_views_are_measured_beside_their_reference(
    name: str, view: View, tmp_path: Path
) -> None:
    fidelity = _run(name, view, tmp_path).fidelity
    assert fidelity is not None
    assert fidelity.reference is not None
    assert fidelity.target.overall.compactions > 0
    assert fidelity.reference.overall.compactions > 0
    assert set(fidelity.target.overall.measures) >= {"constraints", "compression"}


def _round(kept: int, present: int, number: int = 1) -> RoundFidelity:
    share = Survival(kept, present)
    return RoundFidelity(number, share, share, share, share, Survival(), 100, kept + 1, "messages")


def test_merging_shards_pools_exactly_what_one_run_would_show() -> None:
    rng = random.Random(7)
    rounds = [_round(rng.randint(0, 5), 5, rng.randint(1, 3)) for _ in range(60)]

    def side(items: list[RoundFidelity]) -> FidelitySide:
        numbers = sorted({item.round for item in items})
        return FidelitySide(
            overall=summarised(0, items),
            rounds=[summarised(n, [i for i in items if i.round == n]) for n in numbers],
        )

    def fidelity(items: list[RoundFidelity]) -> Fidelity:
        return Fidelity(counter="messages", target=side(items))

    whole = fidelity(rounds)
    pooled = merged([fidelity(rounds[:17]), None, fidelity(rounds[17:])])
    assert pooled is not None
    pairs = zip(pooled.target.rounds, whole.target.rounds, strict=True)
    for got, want in [(pooled.target.overall, whole.target.overall), *pairs]:
        assert got.round == want.round
        assert got.compactions == want.compactions
        for kind, spread in want.measures.items():
            assert got.measures[kind].n == spread.n
            assert got.measures[kind].mean == pytest.approx(spread.mean, abs=1e-3)
            assert got.measures[kind].sd == pytest.approx(spread.sd, abs=1e-3)
            assert (got.measures[kind].low, got.measures[kind].high) == (spread.low, spread.high)
    assert merged([None, None]) is None
