"""A shard wants its share of the run's coverage, not the whole of it.

Each shard once asked every law to be exercised ``min_exercised`` times and the target to
compact three times on its own few histories: a 60-history run on four workers (eight shards)
explored 240 histories, and ran slower than one worker.
"""

from __future__ import annotations

from pathlib import Path

import compactcheck
from compactcheck.base.shards import Shard
from compactcheck.engine.config import RunConfig

# Compacts only past three user turns: many calls hand the history back unchanged.
SOMETIMES = """
def compact(messages):
    system = [m for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    users = [i for i, m in enumerate(rest) if m["role"] == "user"]
    if len(users) <= 3:
        return messages
    return system + rest[users[-3]:]
"""


def test_a_shard_wants_its_share_of_the_coverage_and_at_least_one() -> None:
    whole = RunConfig(seed=0, max_examples=60, min_exercised=5, max_total_examples=300)
    eighth = whole.for_shard(Shard(1, 8))
    assert (eighth.max_examples, eighth.min_exercised, eighth.min_compactions) == (8, 1, 1)
    assert eighth.max_total_examples == 40
    half = whole.for_shard(Shard(2, 2))
    assert (half.max_examples, half.min_exercised, half.min_compactions) == (30, 3, 2)
    assert half.max_total_examples == 150
    # One shard is the run itself.
    assert whole.for_shard(Shard(1, 1)).min_exercised == 5
    assert RunConfig(seed=0, max_examples=60).for_shard(Shard(1, 8)).max_total_examples is None


def test_a_run_on_workers_explores_about_its_budget_where_one_worker_needed_no_more(
    tmp_path: Path,
) -> None:
    module = tmp_path / "sometimes.py"
    module.write_text(SOMETIMES)
    options = {"max_examples": 60, "seed": 0, "shrink": False, "corpus_dir": tmp_path / "c"}
    alone = compactcheck.fuzz(f"py:{module}:compact", **options)  # type: ignore[arg-type]
    pooled = compactcheck.fuzz(f"py:{module}:compact", workers=4, **options)  # type: ignore[arg-type]
    [one], [four] = alone.targets, pooled.targets
    assert max(r.examples for r in one.results) == 60
    # Eight shards of 7 or 8 histories; a shard that saw no compaction may explore once more.
    assert max(r.examples for r in four.results) <= 90
    assert {r.invariant: r.verdict for r in one.results} == {
        r.invariant: r.verdict for r in four.results
    }
