"""Seed-only draws hold in threads searching side by side (the lanes of --in-flight): each
thread draws what its seed names while the others draw, and the hook is put back after."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers

from compactcheck.engine import draws
from compactcheck.engine.draws import HYPOTHESIS_LOCAL_CONSTANTS, seed_only_draws, thread_random
from compactcheck.engine.heap import searching


@pytest.fixture(autouse=True)
def _hypothesis_own_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo tests/conftest.py here: these tests watch the hook come and go, as if no block of
    the test's own thread were open (the conftest's is, around every test)."""
    monkeypatch.setattr(providers, "_get_local_constants", HYPOTHESIS_LOCAL_CONSTANTS)
    monkeypatch.setattr(draws, "_inside", {})
    monkeypatch.setattr(draws, "_base", [])
    providers.CONSTANTS_CACHE.cache.clear()


# Constants of a local module of this file's own: Hypothesis keeps every local constant it has
# seen for the life of the process, so that test_draws.py's module must stay unseen here.
LOCAL_MODULE = """
LIMITS = (4815162342, 1618033, 2718281, 31415926, -2468013579)
NAMES = ("lanes-local-constant", "a thread's own string")
"""


def _import_local_module(folder: Path, name: str) -> None:
    """A module outside site-packages and the standard library: Hypothesis counts it local."""
    path = folder / f"{name}.py"
    path.write_text(LOCAL_MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def _draws() -> list[object]:
    seen: list[object] = []

    @settings(max_examples=300, database=None, phases=[Phase.generate], deadline=None)
    @seed(20261205)
    @given(st.integers() | st.text(max_size=30))
    def draw(value: object) -> None:
        seen.append(value)

    draw()
    return seen


def _in_threads(count: int) -> list[list[object]]:
    """Each of ``count`` threads' draws, all drawing at once inside a seed-only block."""
    results: list[list[object]] = [[] for _ in range(count)]
    barrier = threading.Barrier(count)

    def lane(number: int) -> None:
        thread_random()
        with searching():
            barrier.wait()
            results[number] = _draws()

    threads = [threading.Thread(target=lane, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_threads_drawing_at_once_each_draw_what_the_seed_names(tmp_path: Path) -> None:
    # A loaded local module, whose constants Hypothesis would mix into plain draws.
    name = f"compactcheck_thread_local_{tmp_path.name.replace('-', '_')}"
    _import_local_module(tmp_path, name)
    try:
        with seed_only_draws():
            alone = _draws()
        plain = _draws()
        assert plain != alone, "the local constants change nothing here: the test shows nothing"
        assert all(drawn == alone for drawn in _in_threads(4))
    finally:
        del sys.modules[name]
    # Hypothesis's own hook is back once every thread's block has ended.
    assert providers._get_local_constants is HYPOTHESIS_LOCAL_CONSTANTS


def test_the_last_block_to_end_in_any_thread_puts_back_the_hook() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with seed_only_draws():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(10)
    with seed_only_draws():
        second_in.set()
        assert first_out.wait(10)
        thread.join(10)
        # The first block ended while this one still draws: the hook stays the seed's.
        assert providers._get_local_constants is not HYPOTHESIS_LOCAL_CONSTANTS
    assert providers._get_local_constants is HYPOTHESIS_LOCAL_CONSTANTS


def test_a_block_nested_in_one_thread_puts_back_what_it_found() -> None:
    with seed_only_draws():
        ours = providers._get_local_constants
        setattr(providers, "_get_local_constants", HYPOTHESIS_LOCAL_CONSTANTS)  # noqa: B010
        with seed_only_draws():
            assert providers._get_local_constants is ours
        # As a plain monkeypatch would: what the inner block found, Hypothesis's own here.
        assert providers._get_local_constants is HYPOTHESIS_LOCAL_CONSTANTS
    assert providers._get_local_constants is HYPOTHESIS_LOCAL_CONSTANTS
