"""A compactor that is correct for provider-valid histories: system, first user turn, a safe tail.

The tail's start moves back past tool results to the assistant message whose calls they answer,
so that no kept result loses its call. It assumes what every provider enforces: results follow
their calls at once. Handed a late result, it can still cut a pair.
"""

from typing import Any

TAIL = 6


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the system messages, the first user message and the last TAIL messages, pairs whole."""
    first_user = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    start = max(0, len(messages) - TAIL)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    kept = [
        i
        for i, message in enumerate(messages)
        if message.get("role") == "system" or i == first_user or i >= start
    ]
    return [dict(messages[i]) for i in kept]
