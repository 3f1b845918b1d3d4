"""Re-running a witness to tell deterministic from flaky is the search's work, not the report's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compactcheck.engine.config import RunConfig
from compactcheck.engine.results import target_report
from compactcheck.engine.target_run import TargetRun
from compactcheck.targets.registry import resolve


def test_the_search_re_runs_witnesses_and_the_report_only_reads_them(tmp_path: Path) -> None:
    target = resolve("mutant:snapshot-shorten-goal")
    config = RunConfig(
        seed=0,
        max_examples=30,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        shrink=False,
        include=("goal_preserved",),
    )
    replays: list[Any] = []
    try:
        run = TargetRun(target, "snapshot", config)
        replay = run.search.driver.replay

        def counted(entry: Any) -> Any:
            replays.append(entry)
            return replay(entry)

        run.search.driver.replay = counted  # type: ignore[method-assign]
        list(run.steps())
        assert run.finished is not None
        # Three re-runs of the one witness, before the report was assembled.
        assert len(replays) == 3
        # One way of the law, one witness: keyed by the law and its way.
        assert [(law, verdict) for (law, _), verdict in run.search.reproductions.items()] == [
            ("goal_preserved", "deterministic")
        ]
        again = target_report(run.judge, run.search, 0.0)
    finally:
        target.close()
    # Assembling the report again asks the target nothing, and says the same.
    assert len(replays) == 3
    [result] = [r for r in again.results if r.invariant == "goal_preserved"]
    assert result.counterexample is not None
    assert result.counterexample.reproduced == "deterministic"
    assert again.results == run.finished.report.results
