"""The harness: draws multi-round cases, drives a target through a view, observes its answers.

It is part of the judge: what it hands a target and how it reads the answer decide verdicts.
"""

from compactcheck.harness.views import (
    MALFORMED,
    BackendCompactor,
    Case,
    Driver,
    MessagesDriver,
    RoundOutcome,
    SessionDriver,
    SnapshotDriver,
    Status,
    backend_session_compactor,
    cases,
)

__all__ = [
    "MALFORMED",
    "BackendCompactor",
    "Case",
    "Driver",
    "MessagesDriver",
    "RoundOutcome",
    "SessionDriver",
    "SnapshotDriver",
    "Status",
    "backend_session_compactor",
    "cases",
]
