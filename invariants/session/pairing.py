"""Tool pairing by counting: a cut between surface nodes is balanced when no tool call is open."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.errors import PairingError
from compactcheck.invariants.session.surface import EventLookup


def node_delta(event_type: str, data: object) -> int:
    """How a surface node moves the open-call count: +calls, -1 per result, 0 otherwise."""
    if event_type == "tool/result":
        return -1
    if event_type == "assistant/message" and isinstance(data, dict):
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            calls = 0
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool-call":
                    calls += 1
            return calls
    return 0


# Deltas of events read lately, by the event object (kept in the entry, so that its id is not
# reused while the entry lives): within a case the same surface nodes are counted by the log's
# check, the folds, and the laws, several times each. Events are frozen; cleared when full.
_DELTAS: dict[int, tuple[SessionEvent, int]] = {}
_DELTAS_KEPT = 8192


def event_delta(event: SessionEvent) -> int:
    """``node_delta`` of an event, read once per event object."""
    kept = _DELTAS.get(id(event))
    if kept is not None and kept[0] is event:
        return kept[1]
    delta = node_delta(event.type, event.data)
    if len(_DELTAS) >= _DELTAS_KEPT:
        _DELTAS.clear()
    _DELTAS[id(event)] = (event, delta)
    return delta


class PairingFold:
    """Balanced cuts over a surface prefix; extend() is atomic: a corrupt tail changes nothing."""

    def __init__(self) -> None:
        self.cut_balanced: list[bool] = [True]
        self.index_by_seq: dict[int, int] = {}
        self.open = 0

    @property
    def processed(self) -> int:
        """How many surface nodes the fold has read."""
        return len(self.cut_balanced) - 1

    def extend(self, tail: Sequence[int], event_at: EventLookup) -> None:
        """Fold more nodes; validate all of them before changing any state."""
        open_count = self.open
        cuts: list[bool] = []
        start = self.processed
        for seq in tail:
            event = event_at(seq)
            if event is None or event.seq != seq:
                raise PairingError(
                    "TP2", f"surface seq {seq} has no matching session event (corrupt surface)"
                )
            open_count += event_delta(event)
            if open_count < 0:
                raise PairingError(
                    "TP3",
                    f"tool/result at surface seq {seq} has no matching tool-call (corrupt surface)",
                )
            cuts.append(open_count == 0)
        for offset, seq in enumerate(tail):
            self.index_by_seq[seq] = start + offset
        self.cut_balanced.extend(cuts)
        self.open = open_count

    def _index(self, seq: int) -> int:
        index = self.index_by_seq.get(seq)
        if index is None:
            raise PairingError("TP1", f"surface seq {seq} not found")
        return index

    def balanced_before(self, seq: int) -> bool:
        """Whether no tool call is open just before the node."""
        return self.cut_balanced[self._index(seq)]

    def balanced_after(self, seq: int) -> bool:
        """Whether no tool call is open just after the node."""
        return self.cut_balanced[self._index(seq) + 1]


def fold_pairing(nodes: Sequence[int], event_at: EventLookup) -> PairingFold:
    """A fresh pairing fold over a whole surface."""
    fold = PairingFold()
    fold.extend(nodes, event_at)
    return fold
