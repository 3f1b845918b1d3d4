"""Manual compaction (compactNow): a standalone bracket between turns, with six error codes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from compactcheck.invariants.session import SessionError
from compactcheck.reference_engine.session.compactor import BasicCompactor
from compactcheck.reference_engine.session.errors import ManualCode as ManualCodeT
from compactcheck.reference_engine.session.errors import ManualCompactionError, SurfaceChangedError
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.selection import SurfaceRange, select_compactable_range
from compactcheck.reference_engine.session.signal import AbortSignal
from compactcheck.reference_engine.session.transaction import CompactionResult, run_transaction


class MaintenanceUnavailableError(SessionError):
    """The agent cannot run maintenance now (it is active, or a waking prompt has priority)."""


@dataclass
class Maintenance:
    """An admitted maintenance task: its signal, and how to give admission back."""

    signal: AbortSignal
    release: Callable[[], None]


class MaintenanceHost(Protocol):
    """The agent side of manual compaction: admission and durable flushing."""

    def run_maintenance(self) -> Maintenance:
        """Admit one maintenance task or raise (any exception means busy)."""
        ...

    def flush(self, session: Session) -> None:
        """Persist the session; raise when it could not be saved."""
        ...


@dataclass
class IdleHost:
    """A deterministic host: admits when idle, counts flushes and releases, can fail on demand."""

    idle: bool = True
    flush_error: BaseException | None = None
    flushes: int = 0
    releases: int = 0
    admissions: int = 0
    events: list[str] = field(default_factory=list)
    current: Maintenance | None = None

    def run_maintenance(self) -> Maintenance:
        """Admit when idle; otherwise refuse."""
        if not self.idle:
            raise MaintenanceUnavailableError("agent is not idle; maintenance cannot be admitted")
        self.admissions += 1
        self.idle = False

        def release() -> None:
            self.releases += 1
            self.idle = True
            self.events.append("release")

        self.current = Maintenance(AbortSignal(), release)
        return self.current

    def flush(self, session: Session) -> None:
        """Record the flush; raise flush_error when set."""
        self.flushes += 1
        self.events.append(f"flush@{session.seq}")
        if self.flush_error is not None:
            raise self.flush_error


MANUAL_TEXT = {
    "busy": "a compaction is already active or the agent is not idle; try again when it is idle",
    "cancelled": "compaction was cancelled",
    "changed": "the selected history changed during summarization; the conversation is "
    "unchanged and the attempt is logged",
    "summary": "no useful summary was produced; the conversation is unchanged and the attempt "
    "is logged",
    "commit": "compaction did not finish cleanly; inspect the session before retrying",
    "persistence": "compaction finished but the session could not be saved",
}


def compact_now(
    compactor: BasicCompactor,
    session: Session,
    host: MaintenanceHost,
    *,
    signal: AbortSignal | None = None,
    source_command_id: str | None = None,
) -> CompactionResult | None:
    """Compact the largest balanced head span now, between turns; classify every failure."""
    if signal is not None:
        signal.throw_if_aborted()
    try:
        ticket = host.run_maintenance()
    except Exception as error:
        raise ManualCompactionError("busy", f"compactNow: {MANUAL_TEXT['busy']}") from error
    try:
        return _run(compactor, session, host, ticket, signal, source_command_id)
    finally:
        ticket.release()


def _run(
    compactor: BasicCompactor,
    session: Session,
    host: MaintenanceHost,
    ticket: Maintenance,
    signal: AbortSignal | None,
    source_command_id: str | None,
) -> CompactionResult | None:
    operation = AbortSignal.any_of([ticket.signal, signal])
    measurement = compactor.meter.measure(session)
    span: SurfaceRange | None = select_compactable_range(session, measurement, 0, compactor.pairing)
    if span is None:
        return None
    try:
        outcome = run_transaction(
            session,
            span,
            compactor.parts,
            owner=None,
            stability="selected-span",
            stage="compactNow",
            source_command_id=source_command_id,
            signal=operation,
            check_abort=True,
        )
    except BaseException as error:
        if not (operation.aborted and error is operation.reason):
            raise
        outcome = None
    flush_error: Exception | None = None
    if outcome is not None and outcome.closed:
        try:
            host.flush(session)
        except Exception as error:
            flush_error = error
    # Cancellation wins over every classified failure, but only after close and flush.
    if signal is not None and signal.aborted:
        signal.throw_if_aborted()
    if ticket.signal.aborted:
        raise ManualCompactionError(
            "cancelled", f"compactNow: {MANUAL_TEXT['cancelled']}"
        ) from ticket.signal.reason
    assert outcome is not None
    failure = outcome.failure
    if failure is not None:
        if outcome.stage == "commit":
            code: ManualCodeT = "commit"
        elif isinstance(failure, SurfaceChangedError):
            code = "changed"
        else:
            code = "summary"
        raise ManualCompactionError(code, f"compactNow: {MANUAL_TEXT[code]}") from failure
    if flush_error is not None:
        raise ManualCompactionError(
            "persistence", f"compactNow: {MANUAL_TEXT['persistence']}"
        ) from flush_error
    return outcome.result
