"""How the session laws read a compaction: events by seq, their data, names and witnesses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.exchange import (
    Replacement,
    SessionAfter,
    SessionBefore,
    SurfaceView,
)
from compactcheck.invariants.session.pairing import event_delta


def witness(*events: SessionEvent | None) -> tuple[JsonValue, ...]:
    """A violation's witness: the events named, each once, the absent ones skipped."""
    seen: set[int] = set()
    out: list[JsonValue] = []
    for event in events:
        if event is not None and event.seq not in seen:
            seen.add(event.seq)
            out.append(event.to_json_data())
    return tuple(out)


def event_data(event: SessionEvent | None) -> dict[str, Any]:
    """An event's data where it is an object; empty for no event or other data."""
    return event.data if event is not None and isinstance(event.data, dict) else {}


def delta(event: SessionEvent | None) -> int:
    """How many tool calls a node opens (positive) or closes (negative)."""
    return 0 if event is None else event_delta(event)


def is_rewrite(event: SessionEvent) -> bool:
    """A replacing user/message: a checkpoint, whether or not it carries the marker."""
    return event.type == "user/message" and event.is_replacement


def label(event: SessionEvent | None, seq: int | None = None) -> str:
    """A short name for an event in a sentence: its type and seq, or where it would be."""
    if event is None:
        return f"seq {seq}" if seq is not None else "the end of the log"
    return f"{event.type} seq {event.seq}"


def seq_span(seqs: Sequence[int]) -> str:
    """A short name for a run of seqs in a sentence."""
    if not seqs:
        return "nothing"
    return f"seq {seqs[0]}" if len(seqs) == 1 else f"seqs {seqs[0]}..{seqs[-1]}"


def incremental_event(before: SessionBefore, after: SessionAfter, seq: int) -> SessionEvent | None:
    """An event as the incremental result sees it: the log as handed, then the appended."""
    if 0 <= seq < len(before.events):
        return before.events[seq]
    index = seq - len(before.events)
    return after.appended[index] if 0 <= index < len(after.appended) else None


def replaced_events(
    before: SessionBefore, after: SessionAfter, replaced: Replacement
) -> tuple[SessionEvent | None, list[SessionEvent | None]]:
    """The event that made a replace and the events it shadows, in the incremental result."""
    return (
        incremental_event(before, after, replaced.seq),
        [incremental_event(before, after, seq) for seq in replaced.shadowed],
    )


def checkpoints(after: SessionAfter) -> list[Replacement]:
    """The replaces of the incremental result made by checkpoints (user/message rewrites)."""
    return [
        replaced for replaced in after.incremental.replacements if replaced.type == "user/message"
    ]


def visible(after: SessionAfter) -> SurfaceView:
    """The surface after as the model would see it: the log after folded from scratch, or where
    that fold broke a rule, the log as handed continued with the appended events."""
    return after.surface if after.surface.broken is None else after.incremental
