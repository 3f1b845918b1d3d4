"""Tool-pairing queries on a live session, cached per replace generation."""

from __future__ import annotations

from dataclasses import dataclass
from weakref import WeakKeyDictionary

from compactcheck.invariants.session import PairingFold, SessionEvent
from compactcheck.reference_engine.session.log import Session


@dataclass
class _Entry:
    generation: int
    fold: PairingFold


class ToolPairing:
    """Answers balanced-before/after queries; rebuilds on a new generation, extends on growth."""

    def __init__(self) -> None:
        self._cache: WeakKeyDictionary[Session, _Entry] = WeakKeyDictionary()
        # Observable cost: how many surface events the folds have read.
        self.event_reads = 0
        self.rebuilds = 0

    def _current(self, session: Session) -> PairingFold:
        entry = self._cache.get(session)
        length = session.surface_length
        generation = session.replace_generation
        if entry is None or entry.generation != generation or entry.fold.processed > length:
            fold = PairingFold()
            self.rebuilds += 1
            self._read(session, fold, 0)
            self._cache[session] = _Entry(generation, fold)
            return fold
        if entry.fold.processed < length:
            self._read(session, entry.fold, entry.fold.processed)
        return entry.fold

    def _read(self, session: Session, fold: PairingFold, start: int) -> None:
        def event_at(seq: int) -> SessionEvent | None:
            self.event_reads += 1
            return session.event_at(seq)

        # extend() validates the whole tail before touching the fold (atomic on corruption).
        fold.extend(session.surface_slice(start), event_at)

    def balanced_before(self, session: Session, seq: int) -> bool:
        """Whether no tool call is open on the surface just before seq."""
        return self._current(session).balanced_before(seq)

    def balanced_after(self, session: Session, seq: int) -> bool:
        """Whether no tool call is open on the surface just after seq."""
        return self._current(session).balanced_after(seq)


_DEFAULT = ToolPairing()


def balanced_before(session: Session, seq: int) -> bool:
    """Whether the cut just before seq is balanced (shared cache)."""
    return _DEFAULT.balanced_before(session, seq)


def balanced_after(session: Session, seq: int) -> bool:
    """Whether the cut just after seq is balanced (shared cache)."""
    return _DEFAULT.balanced_after(session, seq)
