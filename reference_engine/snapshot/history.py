"""Checks on the event history handed to the engine."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants import AgentEvent


class HistoryError(ValueError):
    """The event history breaks the envelope rules (unique ids, increasing sequences)."""


def check_history(events: Sequence[AgentEvent]) -> None:
    """Raise HistoryError unless ids are unique and sequences strictly increase."""
    seen: set[str] = set()
    previous: AgentEvent | None = None
    for event in events:
        if event.event_id in seen:
            raise HistoryError(f"event id {event.event_id!r} appears twice")
        seen.add(event.event_id)
        if previous is not None and event.sequence <= previous.sequence:
            raise HistoryError(
                f"event {event.event_id!r} has sequence {event.sequence}, expected more than "
                f"{previous.sequence} (after {previous.event_id!r})"
            )
        previous = event
