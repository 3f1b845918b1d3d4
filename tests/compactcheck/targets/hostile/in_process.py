"""In-process compactors that try to take the run down, each with its own way."""

import sys
import time
from typing import Any

calls = 0


def _tail(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = max(0, len(messages) - 4)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    return [dict(m) for i, m in enumerate(messages) if i < 2 or i >= start]


def exits(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls sys.exit(3) on its third call."""
    global calls
    calls += 1
    if calls == 3:
        sys.exit(3)
    return _tail(messages)


def interrupts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Raises KeyboardInterrupt on its third call (no Ctrl-C was pressed)."""
    global calls
    calls += 1
    if calls == 3:
        raise KeyboardInterrupt
    return _tail(messages)


def hangs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Never answers."""
    time.sleep(10**6)
    return messages


def prints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Writes to stdout on every call, and answers well."""
    print("compacting", len(messages), "messages")
    return _tail(messages)
