"""A conformance run: several targets, each on every view it handles, into one report."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from types import FrameType

from compactcheck.engine.interrupts import Terminated, listening
from compactcheck.engine.target_run import InterruptedRunError, Progress, RunConfig, run_target
from compactcheck.report.model import Report, TargetReport
from compactcheck.targets.registry import Target, TargetError, resolve
from invariants import View


def open_targets(
    names: Sequence[str], config: RunConfig, view: View | None, timeout: float
) -> list[Target]:
    """Resolve every connectable first, so that a typo fails before any fuzzing starts."""
    targets: list[Target] = []
    try:
        for name in names:
            target = resolve(name, view=view, timeout=timeout, budget=config.budget)
            if view is not None and view not in target.views:
                raise TargetError(
                    f"{name}: handles the {', '.join(target.views)} view(s), not {view}"
                )
            targets.append(target)
    except BaseException:
        for target in targets:
            target.close()
        raise
    return targets


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into an immediate interrupt (main thread only; else a no-op).

    For a process that only waits for worker processes: unwinding it anywhere is safe. A
    process that fuzzes in itself listens instead (``interrupts.listening``).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def conformance(
    targets: Sequence[Target],
    config: RunConfig,
    *,
    view: View | None = None,
    progress: Progress | None = None,
    partial: list[TargetReport] | None = None,
) -> Report:
    """Fuzz every target on every view it handles (or the one asked for).

    ``partial`` collects each target report as soon as it is done, so that an interrupted run
    can still write what it has.
    """
    started = datetime.now(UTC).isoformat(timespec="seconds")
    done: list[TargetReport] = partial if partial is not None else []
    with listening():
        for target in targets:
            for target_view in target.views:
                if view is None or target_view == view:
                    try:
                        done.append(run_target(target, target_view, config, progress))
                    except InterruptedRunError as interrupted:
                        done.append(interrupted.report)
                        raise
    return report_of(done, config, started, complete=True)


def report_of(
    done: Sequence[TargetReport], config: RunConfig, started: str, *, complete: bool
) -> Report:
    """The report of what has been run so far."""
    shard = config.shard
    return Report(
        toolkit_version=config.toolkit_version,
        # A shard reports the run's seed and its own place; --seed S --shard i/M re-runs it.
        seed=config.seed if config.run_seed is None else config.run_seed,
        shards=[shard.label] if shard.count > 1 else [],
        profile=config.profile,
        max_examples=config.max_examples,
        rounds=config.rounds,
        complete=complete,
        started_at=started,
        targets=list(done),
        malformed=list(config.malformed),
    )
