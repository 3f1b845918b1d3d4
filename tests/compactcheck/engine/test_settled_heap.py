"""A search sets the heap it started with aside from the collector, and gives it back after."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from compactcheck.engine.config import RunConfig
from compactcheck.engine.target_run import TargetRun
from compactcheck.targets.registry import resolve
from invariants import View


def _run(tmp_path: Path) -> list[int]:
    """Freeze counts seen while a reference run's searches judged its cases."""
    seen: list[int] = []
    target = resolve("reference-messages")
    config = RunConfig(
        seed=3, max_examples=5, profile="ci", corpus_dir=tmp_path, seed_given=True, shrink=False
    )
    view: View = "messages"
    run = TargetRun(target, view, config, None)
    judge = run.run_case

    def counted(case: Any) -> Any:
        seen.append(gc.get_freeze_count())
        return judge(case)

    run.run_case = counted  # type: ignore[method-assign]
    try:
        for _ in run.steps():
            pass
    finally:
        target.close()
    return seen


def test_a_search_freezes_the_heap_it_found_and_unfreezes_it_after(tmp_path: Path) -> None:
    assert gc.get_freeze_count() == 0
    seen = _run(tmp_path)
    assert seen, "the run judged no case"
    assert all(count > 0 for count in seen)
    # Nothing stays set aside once the run is over: a cycle made meanwhile can be collected.
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_by_the_caller_stays_frozen(tmp_path: Path) -> None:
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        _run(tmp_path)
        # Still set aside (a frozen object that died meanwhile is no longer counted): the run
        # did not unfreeze what it had not frozen.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
