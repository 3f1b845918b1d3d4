"""Many calls in flight: a run's shards side by side as threads (lanes), in this process or in
each worker process, an idle lane taking the next shard.

A compactor that waits on a model spends almost none of a history's time computing, so that
one process keeps many of its calls in flight by running many shards at once, one per thread,
each waiting on its own call (``--in-flight K``). A lane runs one shard as a worker process
would (``plan.run_job``: the target resolved, its own Hypothesis search, its own corpus folder);
what it finds is the same whichever lane ran it and whatever ran beside it, and the reports are
folded in the plan's order. Hypothesis supports tests run side by side in threads (6.136 on),
with its timing checks off there; what compactcheck keeps per process around a search (the
seed-only draws, the collector's settings, a warning filter) is shared by the lanes
(``engine.draws``, ``engine.heap``).
"""

from __future__ import annotations

import importlib
import importlib.util
import queue
import signal
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor

from compactcheck.base import interrupts
from compactcheck.engine.draws import thread_random
from compactcheck.engine.events import Event
from compactcheck.engine.plan import Job, run_job
from compactcheck.engine.recording import Recording
from compactcheck.invariants import sentences
from compactcheck.scale.handout import Handout, LocalLanes, Returned, Work, remote_lanes
from compactcheck.scale.pool import interrupt_workers, submit

# How often the run looks for a Ctrl-C while it waits for its lanes.
_POLL = 0.2
# How long lanes told to stop may take to hand back their partial reports.
_STOP_GRACE = 5.0


def _work(jobs: Sequence[Job], recording: Recording) -> Work:
    def run(index: int) -> list[Event]:
        return run_job(jobs[index], recording)

    return run


def _before_lanes() -> None:
    """Once in a process, before its lanes start: what each lane's first step would otherwise
    load at the same moment as the others."""
    sentences.load_lexicon()
    # Hypothesis looks numpy up in sys.modules while it draws (sampled_from checks for an
    # ndarray): a lane whose compactor imports numpy on its first call would leave it half
    # imported there for the other lanes, which then fail on a missing ndarray.
    if importlib.util.find_spec("numpy") is not None:
        importlib.import_module("numpy")


def _prepare() -> None:
    """At a lane's start: what Hypothesis would otherwise do on the lane's first test."""
    thread_random()


def lane_job(
    address: str, key: bytes, lanes: int, jobs: Sequence[Job], recording: Recording
) -> None:
    """In a worker process: ``lanes`` lanes running the shards the parent hands them out."""
    _before_lanes()
    remote_lanes(address, key, lanes, _work(jobs, recording), _prepare)


class _Lanes:
    """The parent's side of one run's lanes: hand the shards out, wait for what comes back."""

    def __init__(
        self,
        jobs: Sequence[Job],
        recording: Recording,
        *,
        lanes: int,
        pool: ProcessPoolExecutor | None,
        workers: int,
    ) -> None:
        self.handout = Handout(len(jobs))
        self.pool = pool
        self.received = 0
        self.futures: list[Future[None]] = []
        self.here: LocalLanes | None = None
        if pool is None:
            _before_lanes()
            self.here = LocalLanes(self.handout, lanes, _work(jobs, recording), _prepare)
            return
        address, key = self.handout.listen()
        # Each worker runs its share of the lanes; the last may run fewer.
        share = -(-lanes // workers)
        for _ in range(workers):
            self.futures.append(submit(pool, lane_job, address, key, share, jobs, recording))

    @property
    def outstanding(self) -> bool:
        """Whether a shard is still to run or to come back."""
        return self.received < self.handout.handed or not self.handout.exhausted

    def next(self, timeout: float) -> Returned | None:
        """What a lane gave back within ``timeout`` seconds, or None."""
        try:
            returned = self.handout.returned.get(timeout=timeout)
        except queue.Empty:
            self._check_workers()
            return None
        self.received += 1
        return returned

    def _check_workers(self) -> None:
        """Raise what a worker's lanes ended with (a process pool broken by a killed worker)."""
        for future in self.futures:
            failed = future.exception() if future.done() else None
            if failed is not None:
                raise failed

    def stop(self) -> None:
        """Hand out no more, and tell the running shards to stop and report what they have."""
        self.handout.close()
        if self.pool is not None:
            interrupt_workers(self.pool)
        if self.here is not None:
            self.here.stop()

    def close(self) -> None:
        """Release the socket remote lanes asked on."""
        self.handout.stop_listening()


def _events(returned: Returned) -> list[Event]:
    """A shard's events; what its lane raised, raised here (an interrupt: nothing to tell)."""
    error = returned.error
    if error is None:
        events: list[Event] = returned.value
        return events
    if isinstance(error, KeyboardInterrupt):
        return []
    raise error


def side_by_side(
    jobs: Sequence[Job],
    recording: Recording,
    *,
    lanes: int,
    pool: ProcessPoolExecutor | None = None,
    workers: int = 1,
) -> Iterator[Event]:
    """Every job's events, job by job as lanes finish them: ``lanes`` threads in this process
    (no ``pool``), or shared out over the ``workers`` processes of ``pool``.

    A Ctrl-C or SIGTERM (heard by ``interrupts``, or thrown in) stops the handout and asks the
    running shards to stop: their partial reports come back within a grace period and are
    told before the interrupt goes on. Closed early, or on an error, the lanes are stopped too.
    """
    run = _Lanes(jobs, recording, lanes=lanes, pool=pool, workers=workers)
    try:
        while run.outstanding:
            interrupts.check()
            returned = run.next(_POLL)
            if returned is not None:
                yield from _events(returned)
    except KeyboardInterrupt:
        if not interrupts.heard():
            interrupts.note(signal.SIGINT)
        run.stop()
        yield from _partial(run)
        raise
    finally:
        if run.outstanding:
            run.stop()
            _wait(run)
        run.close()


def _partial(run: _Lanes) -> Iterator[Event]:
    """The reports of the shards that were running when the run was told to stop."""
    deadline = time.monotonic() + _STOP_GRACE
    while run.received < run.handout.handed and time.monotonic() < deadline:
        try:
            returned = run.next(min(_POLL, max(0.0, deadline - time.monotonic())))
        except Exception:
            # A worker's lanes ended in error meanwhile: what they held is lost, as said above.
            return
        if returned is not None and returned.error is None:
            yield from returned.value


def _wait(run: _Lanes) -> None:
    """Wait (up to the grace period) for stopped lanes to hand back their shards."""
    for _ in _partial(run):
        pass
