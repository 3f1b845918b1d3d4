"""Checks on the event history handed to the engine, and the tool-call pairs inside it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from invariants import AgentEvent


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


@dataclass(frozen=True)
class ToolPairs:
    """Where each tool call and result sits, by index in an event list."""

    call_index: dict[str, int]
    result_index: dict[str, int]

    @classmethod
    def of(cls, events: Sequence[AgentEvent]) -> ToolPairs:
        """Index the tool calls and results of a list of events."""
        calls: dict[str, int] = {}
        results: dict[str, int] = {}
        for index, event in enumerate(events):
            if event.type == "tool_call":
                calls[event.text("callId")] = index
            elif event.type == "tool_result":
                results[event.text("callId")] = index
        return cls(calls, results)

    def orphan_results(self, start: int) -> list[str]:
        """Call ids whose result is at or after ``start`` but whose call is before it."""
        return [
            call_id
            for call_id, index in self.result_index.items()
            if index >= start and self.call_index.get(call_id, -1) < start
        ]

    def safe_starts(self, length: int) -> list[bool]:
        """For each index, whether a tail starting there keeps every result with its call."""
        # earliest[i] = the smallest call index among results at index >= i.
        earliest = [length] * (length + 1)
        lowest = length
        by_result = {index: call_id for call_id, index in self.result_index.items()}
        for index in range(length - 1, -1, -1):
            call_id = by_result.get(index)
            if call_id is not None:
                lowest = min(lowest, self.call_index.get(call_id, -1))
            earliest[index] = lowest
        return [earliest[index] >= index for index in range(length)] + [True]
