"""A seed names one sequence of histories, whichever of the caller's modules are loaded."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.engine.draws import HYPOTHESIS_LOCAL_CONSTANTS, seed_only_draws
from compactcheck.targets.registry import resolve

LOCAL_MODULE = """
# Integers within the ranges the scenario strategies draw from (up to 2**24 - 1), and beyond.
LIMITS = (9182736, 1928374, 5550123, 7777111, 12312312, 6400001, 918273645, -55501234)
NAMES = ("zz-local-constant-zz", "another local string", "yet another one")
"""


@pytest.fixture(autouse=True)
def _hypothesis_own_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo tests/conftest.py here: these tests compare Hypothesis's draws with ours."""
    monkeypatch.setattr(providers, "_get_local_constants", HYPOTHESIS_LOCAL_CONSTANTS)
    providers.CONSTANTS_CACHE.cache.clear()


def _import_local_module(folder: Path, name: str) -> ModuleType:
    """A module outside site-packages and the standard library: Hypothesis counts it local."""
    path = folder / f"{name}.py"
    path.write_text(LOCAL_MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _draws() -> list[int]:
    seen: list[int] = []

    @settings(max_examples=400, database=None, phases=[Phase.generate], deadline=None)
    @seed(20261130)
    @given(st.integers())
    def draw(value: int) -> None:
        seen.append(value)

    draw()
    return seen


def test_loading_a_module_changes_plain_draws_but_not_seed_only_draws(tmp_path: Path) -> None:
    plain_before = _draws()
    with seed_only_draws():
        stable_before = _draws()
    name = f"compactcheck_test_local_{tmp_path.name.replace('-', '_')}"
    _import_local_module(tmp_path, name)
    try:
        plain_after = _draws()
        with seed_only_draws():
            stable_after = _draws()
    finally:
        del sys.modules[name]
    # The hazard is real: the same seed drew other values once one more module was loaded.
    assert plain_after != plain_before
    assert stable_after == stable_before


RECORDER = """
import json

LOG = {log!r}


def compact(messages):
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(messages, sort_keys=True) + "\\n")
    return messages
"""


def test_the_runner_draws_the_same_histories_whatever_is_loaded(tmp_path: Path) -> None:
    recorder = tmp_path / "recorder.py"

    def histories(log: Path) -> list[str]:
        recorder.write_text(RECORDER.format(log=str(log)))
        target = resolve(f"py:{recorder}:compact", view="messages")
        config = RunConfig(
            seed=11, max_examples=30, profile="ci", corpus_dir=tmp_path, shrink=False
        )
        try:
            run_target(target, "messages", config)
        finally:
            target.close()
        return log.read_text().splitlines()

    before = histories(tmp_path / "before.jsonl")
    name = f"compactcheck_test_runner_{tmp_path.name.replace('-', '_')}"
    _import_local_module(tmp_path, name)
    try:
        after = histories(tmp_path / "after.jsonl")
    finally:
        del sys.modules[name]
    assert len(before) >= 30
    assert after == before
