"""A pool of worker processes that none outlives, and that stops cleanly on Ctrl-C.

The pool is the standard library's ``ProcessPoolExecutor``; what its workers run is the
engine's (``engine.plan.run_job``).
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import multiprocessing.forkserver
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from types import FrameType
from typing import ParamSpec, TypeVar

from compactcheck.backends import template
from compactcheck.base import interrupts
from compactcheck.scale import forkserver_main

# How long an interrupted worker may take to unwind its job before it is killed, and how often
# it is told again meanwhile.
_STOP_GRACE = 5.0
_STOP_AGAIN = 1.0

# Imported first by the fork server: it runs the parent's main script there, once.
_MAIN = forkserver_main.__name__
# Imported last by the fork server: what each worker would do on its first job (and must not be
# imported anywhere else: it freezes the heap of whoever imports it).
_PRELOAD = "compactcheck.scale.preload"

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


def _context() -> multiprocessing.context.BaseContext:
    """The fork server's context, told what to import before it forks any worker."""
    # Not forked from the parent, which may hold subprocess pipes and a console thread: a
    # fork server imports compactcheck once, then forks each worker from that clean process.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        [_MAIN, "compactcheck.scale.pool", "compactcheck.engine.plan", _PRELOAD]
    )
    return context


def _main_script() -> str:
    """The path a worker would run its parent's main module from ('' when it imports none)."""
    main = sys.modules["__main__"]
    # As multiprocessing decides: a module run by name (python -m) is not run again.
    if getattr(main, "__spec__", None) is not None:
        return ""
    path = getattr(main, "__file__", None)
    return os.path.normpath(path) if isinstance(path, str) else ""


def warm_up() -> multiprocessing.context.BaseContext:
    """Start the fork server now (if it is not running), so that its imports overlap whatever
    this process does next; the context its workers are forked in.

    The server imports in the background: the first worker forked waits for it, not this call.
    From now until the pool closes, a py: target resolved here starts the template its workers
    fork their isolated workers from (``backends.template``).
    """
    template.want()
    context = _context()
    script = _main_script()
    # Read by the server as it starts (forkserver_main), and no process started after it.
    if script:
        os.environ[forkserver_main.VARIABLE] = script
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        os.environ.pop(forkserver_main.VARIABLE, None)
    return context


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes that none outlives, for jobs sent with ``submit``.

    On an exception (Ctrl-C, or SIGTERM turned into one) pending jobs are cancelled, running
    ones interrupted so that they unwind (temporary files removed, targets closed), and a
    worker still alive after a grace period is killed. A worker whose parent dies, even by
    SIGKILL, stops its job and exits by itself.
    """
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=warm_up(), initializer=_start_worker)
    try:
        try:
            yield pool
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True)
    finally:
        template.close_all()


def interrupt_workers(pool: ProcessPoolExecutor) -> None:
    """Ask every worker to stop its job at its next safe point (as Ctrl-C would), keeping the
    pool: what the jobs found so far still comes back (their lanes' partial reports)."""
    for process in list((pool._processes or {}).values()):
        if process.pid is not None and process.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGINT)


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
