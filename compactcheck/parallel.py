"""Parallel runs on one machine: (target, view, shard) jobs in a pool of worker processes.

The pool is the standard library's ``ProcessPoolExecutor``; a job carries only names and a
config, and each worker resolves its own target, so no live backend crosses a process boundary.
"""

from __future__ import annotations

import math
import multiprocessing
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compactcheck.merge import merge_corpora, merge_target_groups
from compactcheck.report import TargetReport
from compactcheck.runner import Progress, RunConfig, Shard, run_target
from compactcheck.targets import resolve
from invariants import View

# Where the shards of one machine keep their corpora until they are merged into the main one.
SHARD_CORPORA = ".shards"


@dataclass(frozen=True)
class Job:
    """One target on one view, one shard of the budget: what one worker process runs."""

    target: str
    view: View
    config: RunConfig
    timeout: float

    @property
    def label(self) -> str:
        """``name [view] shard i/M``, for progress lines."""
        shard = self.config.shard
        return f"{self.target} [{self.view}]" + (f" shard {shard.label}" if shard.count > 1 else "")


@dataclass(frozen=True)
class Plan:
    """The jobs of a run and how finely each (target, view) was cut to keep workers busy."""

    jobs: list[Job]
    parts: int


def plan(
    units: Sequence[tuple[str, View]],
    config: RunConfig,
    *,
    shard: Shard,
    workers: int,
    timeout: float,
) -> Plan:
    """Jobs for ``units`` (target, view) within ``shard``, enough to keep ``workers`` busy.

    With at least as many units as workers each unit is one job; with fewer, each unit is cut
    into finer shards (see ``Shard.split``), each with its own seed and share of the budget.
    """
    parts = 1 if len(units) >= workers else math.ceil(workers / max(1, len(units)))
    database_dir = config.database_dir or config.corpus_dir.parent / "hypothesis"
    jobs: list[Job] = []
    for name, view in units:
        for piece in shard.split(parts):
            piece_config = config.for_shard(piece)
            if parts > 1:
                # Shards of one target would overwrite each other's entries; merged at the end.
                corpus = config.corpus_dir / SHARD_CORPORA / f"{piece.index}-of-{piece.count}"
                piece_config = replace(piece_config, corpus_dir=corpus, database_dir=database_dir)
            jobs.append(Job(name, view, piece_config, timeout))
    return Plan(jobs, parts)


def run_job(job: Job) -> dict[str, Any]:
    """Resolve the target, fuzz it, close it; the report as JSON data (cheap to pickle)."""
    target = resolve(job.target, view=job.view, timeout=job.timeout, budget=job.config.budget)
    try:
        return run_target(target, job.view, job.config).model_dump(mode="json")
    finally:
        target.close()


def run_jobs(
    jobs: Sequence[Job],
    workers: int,
    *,
    progress: Progress | None = None,
    partial: list[TargetReport] | None = None,
) -> list[TargetReport]:
    """Run every job, ``workers`` at a time; reports in job order, shards of a target merged.

    ``partial`` receives each job's report as it finishes, so an interrupted run keeps them.
    """
    say: Callable[[str], None] = progress or (lambda _: None)
    done: dict[int, TargetReport] = {}
    # Not forked from the parent, which may hold subprocess pipes and a console thread: a
    # fork server imports compactcheck once, then forks each worker from that clean process.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["compactcheck.parallel"])
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures: dict[Future[dict[str, Any]], int] = {
            pool.submit(run_job, job): number for number, job in enumerate(jobs)
        }
        try:
            for future in as_completed(futures):
                number = futures[future]
                report = TargetReport.model_validate(future.result())
                done[number] = report
                if partial is not None:
                    partial.append(report)
                say(f"{jobs[number].label}: done ({len(done)} of {len(jobs)} jobs)")
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return merge_target_groups(done[number] for number in sorted(done))


def gather_corpora(corpus_dir: Path) -> list[Path]:
    """Merge the per-shard corpora of one machine into ``corpus_dir`` and remove them."""
    shards = corpus_dir / SHARD_CORPORA
    if not shards.is_dir():
        return []
    sources = sorted(path for path in shards.iterdir() if path.is_dir())
    written = merge_corpora(sources, corpus_dir)
    shutil.rmtree(shards, ignore_errors=True)
    return written
