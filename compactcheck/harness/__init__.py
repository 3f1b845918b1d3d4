"""The harness: draws multi-round cases, drives a target through a view, observes its answers.

It is part of the judge: what it hands a target and how it reads the answer decide verdicts.
From ``reference_engine`` it imports only ``shared_semantics``, the contract it shares with the
reference compactors, so a change to a reference compactor or a mutant cannot change the verdict
on a third-party target.
"""

from compactcheck.harness.cases import MALFORMED, Case, cases
from compactcheck.harness.driver import Driver
from compactcheck.harness.messages import MessagesDriver
from compactcheck.harness.outcome import RoundOutcome, Status
from compactcheck.harness.session import SessionDriver, backend_session_compactor
from compactcheck.harness.session_exchange import SessionBackendError, session_exchange
from compactcheck.harness.snapshot import (
    BackendCompactor,
    SnapshotDriver,
    backend_snapshot_frame,
)
from compactcheck.reference_engine.shared_semantics import SessionCompactor, SnapshotFrame

__all__ = [
    "MALFORMED",
    "BackendCompactor",
    "Case",
    "Driver",
    "MessagesDriver",
    "RoundOutcome",
    "SessionBackendError",
    "SessionCompactor",
    "SessionDriver",
    "SnapshotDriver",
    "SnapshotFrame",
    "Status",
    "backend_session_compactor",
    "backend_snapshot_frame",
    "cases",
    "session_exchange",
]
