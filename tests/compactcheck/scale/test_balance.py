"""A run with more workers than units cuts each unit into up to two shards per worker, so that
the shards end together, the same cut on every run; and the workers start warm."""

from __future__ import annotations

import gc
from pathlib import Path

from compactcheck.base.shards import Shard
from compactcheck.engine.config import RunConfig
from compactcheck.engine.plan import plan
from compactcheck.invariants import View
from compactcheck.scale.pool import submit, worker_pool
from compactcheck.targets.calls import Calls


def _cut(tmp_path: Path, budget: int, workers: int, shard: Shard | None = None) -> list[int]:
    config = RunConfig(seed=1, max_examples=budget, corpus_dir=tmp_path / "corpus")
    work = plan(
        [("reference-messages", "messages")],
        config,
        shard=shard or Shard(),
        lanes=workers,
        calls=Calls(timeout=5),
    )
    assert len(work.jobs) == work.parts
    return [job.config.max_examples for job in work.jobs]


def test_a_unit_is_cut_into_two_shards_per_worker_while_they_keep_ten_histories(
    tmp_path: Path,
) -> None:
    # 200 histories on eight workers: sixteen shards of 12 or 13 (one per worker before).
    assert _cut(tmp_path, 200, 8) == [13] * 8 + [12] * 8
    # Never below ten histories a shard for the sake of balance...
    assert _cut(tmp_path, 100, 8) == [10] * 10
    assert _cut(tmp_path, 40, 4) == [10] * 4
    # ...but one shard per worker still, as before.
    assert _cut(tmp_path, 20, 4) == [5] * 4


def test_the_cut_and_its_seeds_are_the_same_on_every_run(tmp_path: Path) -> None:
    config = RunConfig(seed=1, max_examples=200, corpus_dir=tmp_path / "corpus")

    def seeds() -> list[int]:
        units: list[tuple[str, View]] = [("reference-messages", "messages")]
        work = plan(units, config, shard=Shard(), lanes=8, calls=Calls(timeout=5))
        return [job.config.seed for job in work.jobs]

    assert seeds() == seeds()
    assert len(set(seeds())) == 16
    # A machine's shard is cut within it, in the finer global numbering (32 shards of the run's
    # 400 histories: 13 for the first sixteen, this machine's 12 each).
    assert _cut(tmp_path, 400, 8, Shard(2, 2)) == [12] * 16


def test_a_worker_starts_with_the_fork_servers_heap_collected_and_frozen() -> None:
    with worker_pool(2) as pool:
        frozen = submit(pool, gc.get_freeze_count).result(timeout=120)
    # What the fork server imported and loaded (the lemma dictionary among it) is set aside
    # from each worker's collections; a worker collecting it would copy every page it shares.
    assert frozen > 10_000
