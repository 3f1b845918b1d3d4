"""A compactor that raises on histories with a parallel tool batch and trims the others well."""

from typing import Any

TAIL = 6


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Raise where an assistant message holds two or more calls; else keep the head and a tail."""
    for message in messages:
        calls = message.get("tool_calls") or ()
        if len(calls) >= 2:
            raise ValueError(f"cannot compact {len(calls)} parallel calls")
    start = max(0, len(messages) - TAIL)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    return [dict(m) for i, m in enumerate(messages) if i < 2 or i >= start]
