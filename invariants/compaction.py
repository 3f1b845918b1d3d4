"""One snapshot-view compaction as checkers see it: what went in, and what came out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.events import AgentEvent
from compactcheck.invariants.snapshot import CompactionSnapshot
from compactcheck.invariants.state import AgentState


@dataclass(frozen=True)
class SnapshotBefore:
    """The run before compaction.

    ``handed`` is the compactor input as JSON data, captured before the backend saw it;
    ``state_data`` is the authoritative state as JSON data at the same moment;
    ``context_chars`` is the size of the context the model would see without compacting.
    """

    state: AgentState
    events: tuple[AgentEvent, ...]
    handed: dict[str, Any]
    state_data: dict[str, Any]
    context_chars: int


@dataclass(frozen=True)
class SnapshotAfter:
    """What compaction produced: the sealed snapshot, the raw tail, and the inputs re-read.

    ``handed`` and ``state_data`` are the same objects dumped again after the backend returned,
    so that a backend which mutated them in place is caught.
    """

    snapshot: CompactionSnapshot
    raw_tail: tuple[AgentEvent, ...]
    handed: dict[str, Any]
    state_data: dict[str, Any]
    context_chars: int
