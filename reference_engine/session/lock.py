"""The durable compaction lock: the unmatched compaction/start, found by one backwards scan."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.reference_engine.session.errors import ManualCompactionError
from compactcheck.reference_engine.session.log import Session


@dataclass(frozen=True)
class EntryState:
    """What a compaction entry point needs to know about the log tail."""

    open_turn: int | None
    unmatched_start_seq: int | None
    latest_end_seed_seq: int | None

    @property
    def busy(self) -> bool:
        """Whether a live (not stale) compaction holds the lock."""
        if self.unmatched_start_seq is None:
            return False
        return self.latest_end_seed_seq is None or (
            self.latest_end_seed_seq <= self.unmatched_start_seq
        )


def inspect_entry_state(session: Session) -> EntryState:
    """Scan the log backwards once, finding the three facts independently."""
    open_turn: int | None = None
    turn_known = start_known = seed_known = False
    unmatched: int | None = None
    end_seed: int | None = None
    for event in reversed(session.events):
        kind = event.type
        if not turn_known and kind in ("turn/start", "turn/end"):
            turn_known = True
            if kind == "turn/start":
                open_turn = event.data["turn"]
        elif not start_known and kind in ("compaction/start", "compaction/end"):
            start_known = True
            if kind == "compaction/start":
                unmatched = event.seq
        elif not seed_known and kind == "session/end-seed":
            seed_known = True
            end_seed = event.seq
        if turn_known and start_known and seed_known:
            break
    return EntryState(open_turn, unmatched, end_seed)


def assert_compaction_inactive(session: Session, stage: str) -> EntryState:
    """Raise busy when a live compaction holds the lock; return the entry state otherwise."""
    state = inspect_entry_state(session)
    if state.busy:
        raise ManualCompactionError(
            "busy",
            f"{stage}: compaction already in progress; the session compaction lock is already "
            f"active (compaction/start at seq {state.unmatched_start_seq} has no end); wait for "
            "it to finish",
        )
    return state
