"""Parallel runs on one machine: (target, view, shard) jobs in a pool of worker processes.

The pool is the standard library's ``ProcessPoolExecutor``; a job carries only names and a
config, and each worker resolves its own target, so no live backend crosses a process boundary.
"""

from __future__ import annotations

import contextlib
import functools
import math
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, ParamSpec, TypeVar

from compactcheck.engine import interrupts
from compactcheck.engine.target_run import SHARD_CORPORA, Progress, RunConfig, Shard, run_target
from compactcheck.report.model import TargetReport
from compactcheck.scale.merge import merge_corpora, merge_target_groups
from compactcheck.targets.registry import resolve
from invariants import View

# How long an interrupted worker may take to unwind its job before it is killed, and how often
# it is told again meanwhile.
_STOP_GRACE = 5.0
_STOP_AGAIN = 1.0

P = ParamSpec("P")
T = TypeVar("T")

# In a worker process: whether a job is running (a stop signal is kept by `interrupts`).
_busy = False


def _hear_stop(signum: int, frame: FrameType | None) -> None:
    """In a worker: SIGINT or SIGTERM interrupts the running job, so that it unwinds.

    The signal is recorded, and the job raises it at its next safe point (between examples,
    or within 0.2 s of a wait for the backend; see ``interrupts``): raised here, it could land
    in Hypothesis's engine or in a gc callback, printed there as ignored. A worker told to stop
    starts no further job. Between jobs SIGINT is otherwise ignored (Ctrl-C reaches the whole
    process group, and the parent stops its pool) and SIGTERM ends the worker, as it would by
    default.
    """
    interrupts.note(signum)
    if _busy:
        return
    if signum == signal.SIGTERM:
        raise SystemExit(128 + signum)


def _end_with_parent(sentinel: int) -> None:
    """In a worker: once the parent is gone, however it went, stop the job and exit.

    A worker waits for its next job on a pipe it holds both ends of, so it would never learn
    of its parent's death by itself; nor can a parent that was killed stop its workers.
    """
    multiprocessing.connection.wait([sentinel])
    deadline = time.monotonic() + _STOP_GRACE
    while True:
        os.kill(os.getpid(), signal.SIGTERM)
        # Told again after a while, as in _stop.
        again = min(deadline, time.monotonic() + _STOP_AGAIN)
        while _busy and time.monotonic() < again:
            time.sleep(0.05)
        if not _busy or time.monotonic() >= deadline:
            os._exit(128 + signal.SIGTERM)


def _start_worker() -> None:
    signal.signal(signal.SIGINT, _hear_stop)
    signal.signal(signal.SIGTERM, _hear_stop)
    parent = multiprocessing.parent_process()
    if parent is not None:
        watch = threading.Thread(target=_end_with_parent, args=(parent.sentinel,), daemon=True)
        watch.start()


def _as_job(job: Callable[[], T]) -> T:
    global _busy
    _busy = True
    try:
        if interrupts.heard():
            # A job queued before the stop signal came is refused, not started.
            raise KeyboardInterrupt
        return job()
    finally:
        _busy = False


def submit(
    pool: ProcessPoolExecutor, function: Callable[P, T], *arguments: P.args, **keywords: P.kwargs
) -> Future[T]:
    """Send a job (a module-level function and picklable arguments) to a ``worker_pool``."""
    return pool.submit(_as_job, functools.partial(function, *arguments, **keywords))


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes that none outlives, for jobs sent with ``submit``.

    On an exception (Ctrl-C, or SIGTERM turned into one) pending jobs are cancelled, running
    ones interrupted so that they unwind (temporary files removed, targets closed), and a
    worker still alive after a grace period is killed. A worker whose parent dies, even by
    SIGKILL, stops its job and exits by itself.
    """
    # Not forked from the parent, which may hold subprocess pipes and a console thread: a
    # fork server imports compactcheck once, then forks each worker from that clean process.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["compactcheck.scale.pool"])
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker)
    try:
        yield pool
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    # Taken before shutdown, which forgets them; the pool has no public handle on its workers.
    # (A worker looks dead once the fork server is, e.g. after SIGTERM to the process group;
    # then it is its own watch, _end_with_parent, that ends it after this process exits.)
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + _STOP_GRACE
    alive = [process for process in processes if process.is_alive()]
    while alive and time.monotonic() < deadline:
        for process in alive:
            if process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGINT)
        # Told again after a while (a worker acts on the first at its next safe point; the
        # rest only make sure a signal that arrived between two jobs is not the last word).
        again = min(deadline, time.monotonic() + _STOP_AGAIN)
        while time.monotonic() < again and any(process.is_alive() for process in alive):
            time.sleep(0.05)
        alive = [process for process in alive if process.is_alive()]
    for process in processes:
        if process.is_alive():
            process.kill()
        process.join()


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
    jobs: list[Job] = []
    for name, view in units:
        for piece in shard.split(parts):
            # Shards of one target keep their corpus entries apart; gather_corpora merges them.
            piece_config = config.for_piece(piece) if parts > 1 else config.for_shard(piece)
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
    with worker_pool(workers) as pool:
        futures: dict[Future[dict[str, Any]], int] = {
            submit(pool, run_job, job): number for number, job in enumerate(jobs)
        }
        for future in as_completed(futures):
            number = futures[future]
            report = TargetReport.model_validate(future.result())
            done[number] = report
            if partial is not None:
                partial.append(report)
            say(f"{jobs[number].label}: done ({len(done)} of {len(jobs)} jobs)")
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
