"""A Hypothesis that moved the private hook of seed-only draws still fuzzes, and says so once."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis.internal.conjecture import providers

import compactcheck
from compactcheck.engine import draws
from compactcheck.verdicts import report_exit


def test_a_moved_hook_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    assert draws._constants() is not None
    monkeypatch.delattr(providers, "_get_local_constants")
    assert draws._constants() is None


def test_without_the_hook_fuzzing_draws_as_hypothesis_does_and_warns_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(draws, "_EMPTY", None)
    monkeypatch.setattr(draws, "_warned", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            report = compactcheck.fuzz(
                "reference-messages", max_examples=5, corpus_dir=tmp_path / "corpus"
            )
    moved = [str(w.message) for w in caught if "private hook" in str(w.message)]
    assert moved == [draws.MOVED]
    assert "a --seed then names one sequence of histories only while" in moved[0]
    assert report_exit(report) == 0
