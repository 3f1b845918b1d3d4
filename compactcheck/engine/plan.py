"""The jobs of a run: (target, view, shard) units, cut finely enough to keep workers busy.

A job carries only names and a config, and each worker resolves its own target, so no live
backend crosses a process boundary.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compactcheck.base.shards import Shard
from compactcheck.engine.config import SHARD_CORPORA, RunConfig
from compactcheck.engine.events import Event
from compactcheck.engine.recording import Recording
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.scale.merge import merge_corpora
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve, templates_for


@dataclass(frozen=True)
class Job:
    """One target on one view, one shard of the budget: what one worker process runs."""

    target: str
    view: View
    config: RunConfig
    calls: Calls
    # Its place in the plan: shards are folded in this order, whatever order they finish in.
    index: int = 0

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
    calls: Calls,
    separate_corpora: bool = True,
) -> Plan:
    """Jobs for ``units`` (target, view) within ``shard``, enough to keep ``workers`` busy.

    With at least as many units as workers each unit is one job; with fewer, each unit is cut
    into finer shards (see ``Shard.split``), each with its own seed and share of the budget.
    Shards of one target keep their corpus entries apart (``gather_corpora`` merges them),
    unless the run's recording names entries so that they cannot collide.
    """
    parts = 1 if len(units) >= workers else math.ceil(workers / max(1, len(units)))
    # Each worker forks its isolated workers from one template per py: target.
    calls = templates_for([name for name, _ in units], calls)
    jobs: list[Job] = []
    for name, view in units:
        for piece in shard.split(parts):
            apart = parts > 1 and separate_corpora
            piece_config = config.for_piece(piece) if apart else config.for_shard(piece)
            jobs.append(Job(name, view, piece_config, calls, len(jobs)))
    return Plan(jobs, parts)


def run_job(job: Job, recording: Recording) -> list[Event]:
    """In a worker: resolve the target, run it, close it; every event of the run."""
    target = resolve(
        job.target,
        view=job.view,
        calls=job.calls,
        budget=job.config.budget,
        format=job.config.format,
        model=job.config.model,
    )
    try:
        return list(TargetRun(target, job.view, job.config, recording).steps(job.index))
    finally:
        target.close()


def gather_corpora(corpus_dir: Path) -> list[Path]:
    """Merge the per-shard corpora of one machine into ``corpus_dir`` and remove them."""
    shards = corpus_dir / SHARD_CORPORA
    if not shards.is_dir():
        return []
    sources = sorted(path for path in shards.iterdir() if path.is_dir())
    written = merge_corpora(sources, corpus_dir)
    shutil.rmtree(shards, ignore_errors=True)
    return written
