"""A size-triggered compactor: above 40 messages it keeps the first and the last 10, cut blindly."""

from typing import Any

TRIGGER = 40
TAIL = 10


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Below the trigger, nothing; above it, the head and a tail that may start at a result."""
    if len(messages) <= TRIGGER:
        return list(messages)
    return [*messages[:2], *messages[-TAIL:]]
