"""The run engine: targets in, a stream of events out (see ``engine.events``).

Every front end consumes this one stream: the command line (``run`` and ``fuzz``), the pytest
plugin, worker processes, shards and campaigns. None of them runs a part of a run itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime

from compactcheck.backends import template
from compactcheck.base import interrupts
from compactcheck.base.selection import Selection
from compactcheck.base.shards import Shard
from compactcheck.engine.config import RunConfig
from compactcheck.engine.events import (
    Event,
    Interrupted,
    RunFinished,
    RunStarted,
    TargetFinished,
)
from compactcheck.engine.lanes import side_by_side
from compactcheck.engine.plan import Job, gather_corpora, plan, run_job
from compactcheck.engine.recording import ByLaw, Recording
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants import View
from compactcheck.report.model import Report, TargetReport
from compactcheck.scale.merge import merge_target_groups, point_into
from compactcheck.scale.pool import submit, warm_up, worker_pool
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target, TargetError, resolve

# How often a run waiting for its workers looks for a Ctrl-C it heard.
_POLL = 0.2


def report_of(
    done: Sequence[TargetReport], config: RunConfig, started: str, *, complete: bool
) -> Report:
    """The report of what has been run so far."""
    shard = config.shard
    return Report(
        toolkit_version=config.toolkit_version,
        # A shard reports the run's seed and its own place; --seed S --shard i/M re-runs it.
        seed=config.whole_run_seed,
        shards=[shard.label] if shard.count > 1 else [],
        profile=config.profile,
        max_examples=config.max_examples,
        rounds=config.rounds,
        complete=complete,
        started_at=started,
        targets=list(done),
        malformed=list(config.malformed),
        strict_review=config.strict_review,
    )


def _signal_name(interrupt: KeyboardInterrupt) -> str:
    return "SIGTERM" if isinstance(interrupt, interrupts.Terminated) else "SIGINT"


@dataclass
class Engine:
    """Fuzz targets on their views under one config; ``run`` yields what happens."""

    config: RunConfig
    # Each call's timeout and where py: compactors run, for the targets this engine resolves
    # (workers resolve their own with the same).
    calls: Calls = field(default_factory=Calls)
    # Above 1, each (target, view, shard) job runs in a worker process.
    workers: int = 1
    # How many shards run at once (and so calls are in flight), as threads of each worker (or of
    # this process, with one worker); None: one per worker. The cut depends on it, not on where
    # the shards run.
    in_flight: int | None = None
    # The slice of the whole run this one is (--shard i/M).
    shard: Shard = field(default_factory=Shard)
    recording: Recording = field(default_factory=ByLaw)
    # A pool that outlives this run (a campaign's); by default a run with workers makes its own.
    pool: ProcessPoolExecutor | None = None
    # What a worker resolves for a target named otherwise (see ``plan.Job.spec``), by name.
    specs: Mapping[str, str] = field(default_factory=dict)

    @property
    def selection(self) -> Selection:
        """The laws the user selected."""
        return Selection(self.config.include, self.config.exclude)

    @property
    def lanes(self) -> int:
        """How many shards run at once: ``in_flight``, and at least one per worker."""
        return max(self.workers, self.in_flight or 1)

    @property
    def run_config(self) -> RunConfig:
        """The config of the slice this engine runs (the whole run when it is not sharded)."""
        return self.config.for_shard(self.shard) if self.shard.count > 1 else self.config

    def open(self, names: Sequence[str], view: View | None = None) -> list[Target]:
        """Resolve every target and check the selection first, so a typo fails before fuzzing."""
        if self.workers > 1 and self.pool is None:
            # The workers' fork server imports while the targets here are resolved.
            warm_up()
        elif self.lanes > 1:
            # Lanes in this process fork their py: compactors' processes from one template.
            template.want()
        targets: list[Target] = []
        try:
            for name in names:
                target = resolve(
                    name,
                    view=view,
                    calls=self.calls,
                    budget=self.config.budget,
                    format=self.config.format,
                    model=self.config.model,
                )
                targets.append(target)
            self.check(targets, view)
        except BaseException:
            for target in targets:
                target.close()
            raise
        return targets

    def check(self, targets: Sequence[Target], view: View | None = None) -> None:
        """TargetError for a target without ``view``; UnknownInvariantError for a typo'd id."""
        for target in targets:
            if view is not None and view not in target.views:
                raise TargetError(
                    f"{target.name}: handles the {', '.join(target.views)} view(s), not {view}"
                )
        self.selection.check({v for target in targets for v in target.views})

    def run(
        self, targets: Sequence[Target], view: View | None = None
    ) -> Generator[Event, None, None]:
        """Fuzz every target on every view it handles (or ``view``); the run's events.

        The stream ends with ``RunFinished``, after ``Interrupted`` when Ctrl-C or SIGTERM cut
        it short. With workers, the targets given are only named: each worker resolves its own.
        The caller keeps ownership of ``targets`` (and closes them).
        """
        started = datetime.now(UTC).isoformat(timespec="seconds")
        pairs = [(t, v) for t in targets for v in t.views if view is None or v == view]
        if self.workers > 1 or self.pool is not None or self.lanes > 1:
            yield from self._pooled([(t.name, v) for t, v in pairs], started)
        else:
            yield from self._in_process(pairs, started)

    def run_named(self, units: Sequence[tuple[str, View]]) -> Generator[Event, None, None]:
        """Fuzz (target name, view) units in worker processes or lanes, none of them opened
        here: what ``run`` does with workers, for a caller that has not resolved its targets (the
        pytest plugin)."""
        yield from self._pooled(units, datetime.now(UTC).isoformat(timespec="seconds"))

    def _in_process(self, pairs: Sequence[tuple[Target, View]], started: str) -> Iterator[Event]:
        config = self.run_config
        done: list[TargetReport] = []
        stopped: KeyboardInterrupt | None = None
        units = tuple((target.name, view) for target, view in pairs)
        # Fuzzing in this process: a signal is heard, and acted on between examples.
        with interrupts.listening():
            try:
                yield RunStarted(config.whole_run_seed, units)
                for index, (target, view) in enumerate(pairs):
                    interrupts.check()
                    run = TargetRun(target, view, config, self.recording)
                    # Delegated, so that an interrupt passed into the run reaches the target's.
                    yield from run.steps(index)
                    if run.finished is not None:
                        done.append(run.finished.report)
                    if run.search.stopped_by is not None:
                        stopped = run.search.stopped_by
                        break
            except KeyboardInterrupt as interrupt:
                stopped = interrupt
        if stopped is not None:
            yield Interrupted(_signal_name(stopped))
        yield RunFinished(report_of(done, config, started, complete=stopped is None))

    def _pooled(self, units: Sequence[tuple[str, View]], started: str) -> Iterator[Event]:
        config = self.config
        separate = self.recording.separate_pieces
        if self.pool is None and self.workers > 1:
            # The fork server, and the templates of the py: targets that plan() starts: running
            # already when the targets were opened here (``open``), else started now (a run
            # before this one closed its templates with its pool).
            warm_up()
        elif self.pool is None:
            template.want()
        work = plan(
            units,
            config,
            shard=self.shard,
            lanes=self.lanes,
            calls=self.calls,
            separate_corpora=separate,
            specs=self.specs,
        )
        report_config = self.run_config
        done: dict[int, TargetReport] = {}
        stopped: KeyboardInterrupt | None = None
        with interrupts.listening():
            try:
                yield RunStarted(
                    config.whole_run_seed,
                    tuple(units),
                    self.workers,
                    work.parts,
                    len(work.jobs),
                    self.lanes,
                )
                with self._workers() as pool:
                    for event in self._events(pool, work.jobs):
                        if isinstance(event, TargetFinished):
                            done[event.job] = event.report
                            if event.interrupted:
                                stopped = KeyboardInterrupt()
                        yield event
            except KeyboardInterrupt as interrupt:
                stopped = interrupt
            finally:
                if separate:
                    gather_corpora(config.corpus_dir)
        merged = merge_target_groups(done[number] for number in sorted(done))
        if separate and work.parts > 1:
            merged = [point_into(target, config.corpus_dir) for target in merged]
        if stopped is not None:
            yield Interrupted(_signal_name(stopped))
        yield RunFinished(report_of(merged, report_config, started, complete=stopped is None))

    @contextlib.contextmanager
    def _workers(self) -> Iterator[ProcessPoolExecutor | None]:
        """The pool the jobs run in; None for lanes of this process alone."""
        if self.pool is not None:
            yield self.pool
        elif self.workers > 1:
            with worker_pool(self.workers) as pool:
                yield pool
        else:
            try:
                yield None
            finally:
                template.close_all()

    def _events(self, pool: ProcessPoolExecutor | None, jobs: Sequence[Job]) -> Iterator[Event]:
        """Every job's events: one job per worker at a time, or lanes side by side."""
        if pool is not None and self.lanes <= self.workers:
            yield from self._jobs(pool, jobs)
            return
        yield from side_by_side(
            jobs, self.recording, lanes=self.lanes, pool=pool, workers=self.workers
        )

    def _jobs(self, pool: ProcessPoolExecutor, jobs: Sequence[Job]) -> Iterator[Event]:
        """Every job's events, job by job as they finish; a heard signal stops the wait."""
        pending = {submit(pool, run_job, job, self.recording) for job in jobs}
        while pending:
            interrupts.check()
            finished, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
            for future in finished:
                yield from future.result()


def follow(events: Generator[Event, None, None], handle: Callable[[Event], None]) -> Report:
    """Hand every event to ``handle``; the run's report.

    An interrupt that lands in ``handle`` (a second Ctrl-C) is passed into the run, which then
    stops and reports what it did, as it would for one that lands inside it.
    """
    report: Report | None = None
    with contextlib.closing(events):
        event: Event | None = next(events, None)
        while event is not None:
            if isinstance(event, RunFinished):
                report = event.report
            try:
                handle(event)
                event = next(events, None)
            except KeyboardInterrupt as interrupt:
                if report is not None:
                    # The run is over and reported: nothing is left to stop.
                    break
                try:
                    event = events.throw(interrupt)
                except StopIteration:
                    event = None
    assert report is not None, "a run ends with RunFinished"
    return report


class InterruptedRunError(KeyboardInterrupt):
    """The run was interrupted; ``report`` holds what this target had found so far."""

    def __init__(self, report: TargetReport) -> None:
        super().__init__("interrupted")
        self.report = report


def run_target(target: Target, view: View, config: RunConfig) -> TargetReport:
    """Fuzz one target on one view (the caller closes it) and report every law's verdict.

    Raises InterruptedRunError, with the partial report, when a signal cut the run short.
    """
    return _only_target(follow(Engine(config).run([target], view), lambda _: None))


def run_pooled(
    name: str,
    view: View,
    config: RunConfig,
    *,
    workers: int,
    calls: Calls,
    spec: str = "",
    in_flight: int | None = None,
) -> TargetReport:
    """Fuzz the target ``name`` on one view in a pool of ``workers`` processes (and ``in_flight``
    shards at once, as threads of them), its budget cut as ``run --workers --in-flight`` cuts
    it, so that the same seed and cut run the same histories; each worker resolves ``spec`` (by
    default ``name``) with ``calls``. Every law's verdict.

    Raises InterruptedRunError, with the partial report, when a signal cut the run short.
    """
    specs = {name: spec} if spec and spec != name else {}
    engine = Engine(config, calls=calls, workers=workers, in_flight=in_flight, specs=specs)
    return _only_target(follow(engine.run_named([(name, view)]), lambda _: None))


def _only_target(report: Report) -> TargetReport:
    [target_report] = report.targets
    if not report.complete:
        raise InterruptedRunError(target_report)
    return target_report
