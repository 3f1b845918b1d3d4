"""The jobs of a run: (target, view, shard) units, cut finely enough to keep workers busy.

A job carries only names and a config, and each worker resolves its own target, so no live
backend crosses a process boundary.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from compactcheck.base.errors import OutputFileError
from compactcheck.base.shards import Shard
from compactcheck.engine.config import SHARD_CORPORA, RunConfig
from compactcheck.engine.events import Event
from compactcheck.engine.recording import Recording
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.scale.merge import merge_corpora
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve, templates_for

# The fewest histories a shard is cut to when it is cut finer than the workers need.
_SMALLEST_PART = 10


@dataclass(frozen=True)
class Job:
    """One target on one view, one shard of the budget: what one worker process runs."""

    target: str
    view: View
    config: RunConfig
    calls: Calls
    # Its place in the plan: shards are folded in this order, whatever order they finish in.
    index: int = 0
    # What the worker resolves, where it differs from the name the reports give the target
    # (the pytest plugin names a py: file relative to the rootdir, and resolves its absolute
    # path, so that a worker finds it wherever pytest was started).
    spec: str = ""

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
    lanes: int,
    calls: Calls,
    separate_corpora: bool = True,
    specs: Mapping[str, str] | None = None,
) -> Plan:
    """Jobs for ``units`` (target, view) within ``shard``, enough to keep ``lanes`` busy (the
    shards that run at once: worker processes, or threads of them).

    With at least as many units as lanes each unit is one job; with fewer, each unit is cut
    into finer shards (see ``Shard.split``), each with its own seed and share of the budget:
    up to two per lane (see ``_parts``). Shards of one target keep their corpus entries
    apart (``gather_corpora`` merges them), unless the run's recording names entries so that
    they cannot collide. ``specs`` says what a worker resolves for a target whose name is not
    what it is resolved from.
    """
    specs = specs or {}
    parts = _parts(len(units), lanes, shard.budget(config.max_examples))
    # Each worker forks its isolated workers from one template per py: target.
    calls = templates_for([specs.get(name, name) for name, _ in units], calls)
    jobs: list[Job] = []
    for name, view in units:
        for piece in shard.split(parts):
            apart = parts > 1 and separate_corpora
            piece_config = config.for_piece(piece) if apart else config.for_shard(piece)
            jobs.append(Job(name, view, piece_config, calls, len(jobs), specs.get(name, "")))
    return Plan(jobs, parts)


def _parts(units: int, lanes: int, budget: int) -> int:
    """How many shards each unit is cut into: enough to keep ``lanes`` busy, and twice that
    while each shard keeps ``_SMALLEST_PART`` histories.

    Shards of equal budget do not take equal time: a history makes one call per round, and
    the rounds vary, so that with one shard per lane the run waits for the unluckiest shard
    (30 to 50 calls for 25 histories of the same run). Cut twice as fine, a lane that ends
    early takes a shard that another would have run, and the last shards end closer together.
    Not finer: the first histories of a search make more rounds than later ones, so that
    smaller shards add calls (for 200 histories of the messages view: 297 calls in 8 shards,
    313 in 16, 341 in 24, 416 in 32), and a budget cut into pieces too small to reach the
    sizes a search grows to would lower the median history size. The cut depends only on the
    budget, the units and the lanes (``--in-flight``, else ``--workers``), never on where the
    lanes run or how fast, so that a seed with a lane count names the same histories on every
    run, in threads or in processes.
    """
    if units >= lanes:
        return 1
    enough = math.ceil(lanes / max(1, units))
    return max(enough, min(2 * enough, budget // _SMALLEST_PART))


def run_job(job: Job, recording: Recording) -> list[Event]:
    """In a worker: resolve the target, run it, close it; every event of the run."""
    target = resolve(
        job.spec or job.target,
        view=job.view,
        calls=job.calls,
        budget=job.config.budget,
        format=job.config.format,
        model=job.config.model,
    )
    # Reported and recorded (in the corpus) under its name, whatever it was resolved from.
    target.name = job.target
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
    try:
        written = merge_corpora(sources, corpus_dir)
    except OutputFileError:
        # The shards' entries stay where they are, in the shard folder, rather than be lost.
        return []
    shutil.rmtree(shards, ignore_errors=True)
    return written
