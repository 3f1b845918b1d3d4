"""A search sets the heap it started with aside from the collector, and gives it back after."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from compactcheck.engine import heap
from compactcheck.engine.config import RunConfig
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.targets.registry import resolve

T = TypeVar("T")


def _run(tmp_path: Path, probe: Callable[[], T]) -> list[T]:
    """What ``probe`` read while a reference run judged its cases."""
    seen: list[T] = []
    target = resolve("reference-messages")
    config = RunConfig(
        seed=3, max_examples=5, profile="ci", corpus_dir=tmp_path, seed_given=True, shrink=False
    )
    view: View = "messages"
    run = TargetRun(target, view, config, None)
    judge = run.search.run_case

    def counted(case: Any) -> Any:
        seen.append(probe())
        return judge(case)

    run.search.run_case = counted  # type: ignore[method-assign]
    try:
        for _ in run.steps():
            pass
    finally:
        target.close()
    return seen


def test_a_search_freezes_the_heap_it_found_and_unfreezes_it_after(tmp_path: Path) -> None:
    assert gc.get_freeze_count() == 0
    seen = _run(tmp_path, gc.get_freeze_count)
    assert seen, "the run judged no case"
    assert all(count > 0 for count in seen)
    # Nothing stays set aside once the run is over: a cycle made meanwhile can be collected.
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_by_the_caller_stays_frozen(tmp_path: Path) -> None:
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        _run(tmp_path, gc.get_freeze_count)
        # Still set aside (a frozen object that died meanwhile is no longer counted): the run
        # did not unfreeze what it had not frozen.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_search_widens_the_young_generation_and_puts_the_thresholds_back(
    tmp_path: Path,
) -> None:
    before = gc.get_threshold()
    seen = _run(tmp_path, gc.get_threshold)
    assert seen, "the run judged no case"
    # A case's own objects mostly die before the collector walks them.
    assert all(threshold[0] >= 10_000 for threshold in seen)
    assert gc.get_threshold() == before


class _Link:
    """One object of a ring: unreachable once dropped, freed only by the cycle collector."""

    after: _Link


def test_a_search_frees_the_cycles_an_earlier_run_left_before_setting_the_heap_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a finished run leaves is mostly cycles; frozen with the live heap, they would stay
    # set aside search after search (three million objects over the mutant table).
    gc.collect()
    # The last collection is now, whatever the tests before this one left in the process: the
    # ring below, not their leftovers, is what the run must see grown.
    collected = sys.getallocatedblocks()
    monkeypatch.setattr(heap, "_settled_size", collected)
    ring: list[_Link] = []
    while sys.getallocatedblocks() <= 2 * heap._HEAP_GROWTH * collected:
        ring.extend(_Link() for _ in range(100_000))
    for link, after in zip(ring, [*ring[1:], ring[0]], strict=True):
        link.after = after
    left = weakref.ref(ring[0])
    del ring, link, after
    assert left() is not None, "the ring was freed before the run: the test shows nothing"
    seen = _run(tmp_path, lambda: left() is None)
    assert seen, "the run judged no case"
    assert all(seen)


def test_a_search_on_a_heap_that_has_not_grown_does_not_collect_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other side of the rule above: a collection walks the whole heap, so a search whose
    # heap is as it was at the last one leaves a cycle made meanwhile for later.
    # The collector's own passes are off, so that only a collection the run asks for frees it.
    gc.collect()
    gc.disable()
    try:
        monkeypatch.setattr(heap, "_settled_size", sys.getallocatedblocks())
        ring = [_Link(), _Link()]
        ring[0].after, ring[1].after = ring[1], ring[0]
        left = weakref.ref(ring[0])
        del ring
        seen = _run(tmp_path, lambda: left() is None)
    finally:
        gc.enable()
    assert seen, "the run judged no case"
    assert not seen[0]
