"""Python compactors that try to take the run down, each in its own way.

Each answers well on its first two calls in a process and misbehaves on the third, so that a
run has good answers to judge beside the fault (an isolated worker restarted after a crash
counts afresh).
"""

import ctypes
import os
import signal
import sys
import time
from typing import Any

calls = 0


def _third_call() -> bool:
    global calls
    calls += 1
    return calls == 3


def _tail(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = max(0, len(messages) - 4)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    return [dict(m) for i, m in enumerate(messages) if i < 2 or i >= start]


def exits(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls sys.exit(3)."""
    if _third_call():
        sys.exit(3)
    return _tail(messages)


def exits_hard(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ends its process with os._exit(7): no exception, no cleanup."""
    if _third_call():
        os._exit(7)
    return _tail(messages)


def kills_itself(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sends SIGKILL to its own process."""
    if _third_call():
        os.kill(os.getpid(), signal.SIGKILL)
    return _tail(messages)


def segfaults(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reads address 0 through ctypes: a segmentation fault in native code."""
    if _third_call():
        ctypes.string_at(0)
    return _tail(messages)


def eats_memory(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Allocates 50 MB at a time until something stops it."""
    if _third_call():
        hoard = []
        while True:
            hoard.append(bytearray(50 * 1024 * 1024))
    return _tail(messages)


def spins(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Loops forever, holding the interpreter (no sleep, no I/O)."""
    if _third_call():
        while True:
            pass
    return _tail(messages)


def interrupts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Raises KeyboardInterrupt (no Ctrl-C was pressed)."""
    if _third_call():
        raise KeyboardInterrupt
    return _tail(messages)


def hangs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Never answers."""
    time.sleep(10**6)
    return messages


def prints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Writes to stdout on every call, through print and straight to file descriptor 1 (as
    native code would), and answers well."""
    print("compacting", len(messages), "messages")
    os.write(1, b'{"seq": 1, "result": {"messages": []}}\n')
    return _tail(messages)


def mutates(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers well, after emptying the content of the list it was handed."""
    kept = _tail(messages)
    if _third_call():
        messages[-1]["content"] = ""
    return kept


def fails_two_ways(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Exits on its third call in a process and raises on its fifth: two kinds of failure."""
    global calls
    calls += 1
    if calls == 3:
        sys.exit(3)
    if calls == 5:
        raise ValueError("no summary for you")
    return _tail(messages)
