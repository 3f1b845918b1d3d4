"""Folding a whole log into its surface, and rendering the surface as model messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compactcheck.invariants.session import (
    SessionEvent,
    SessionMessage,
    SurfaceTracker,
    derive_event_message,
)


@dataclass(frozen=True)
class Replacement:
    """One committed replace: the new seq, its marker ends and the nodes it hid."""

    seq: int
    start: int
    end: int
    shadowed_seqs: tuple[int, ...]


@dataclass(frozen=True)
class SurfaceFold:
    """The surface a complete log folds to, with its replacement history."""

    nodes: tuple[int, ...]
    generation: int
    replacements: tuple[Replacement, ...]


def fold_surface(events: Sequence[SessionEvent], base_seq: int = 0) -> SurfaceFold:
    """Replay a log (or a window starting at base_seq) and return its surface; raises on S rules."""
    tracker = SurfaceTracker(base_seq)
    replacements: list[Replacement] = []

    def event_at(seq: int) -> SessionEvent | None:
        index = seq - base_seq
        return events[index] if 0 <= index < len(events) else None

    for event in events:
        change = tracker.check(event, event_at)
        tracker.apply(change)
        if change.kind == "replace":
            op = event.surface_op
            replacements.append(Replacement(event.seq, op["start"], op["end"], change.shadowed))
    return SurfaceFold(tuple(tracker.nodes), tracker.generation, tuple(replacements))


def derive_messages(
    events: Sequence[SessionEvent], nodes: Sequence[int], base_seq: int = 0
) -> tuple[SessionMessage, ...]:
    """The messages the model sees for a surface: each node rendered in order, empties dropped."""
    rendered = (derive_event_message(events[seq - base_seq]) for seq in nodes)
    return tuple(message for message in rendered if message is not None)
