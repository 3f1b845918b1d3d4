"""Where a message list may be cut: never between a tool call and any of its results."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants.laws.messages import call_ids
from compactcheck.invariants.messages import ChatMessage, ToolMessage


def safe_cuts(messages: Sequence[ChatMessage]) -> list[bool]:
    """For each position 0..n, whether a cut just before it keeps every call with its results.

    A call at index c whose last result is at index r forbids the cuts c+1..r; a call without a
    result (still pending) forbids nothing, since it travels alone. Linear: one pass to find the
    intervals, one prefix sum to mark them.
    """
    called_at: dict[str, int] = {}
    answered_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call_id in call_ids(message):
            called_at.setdefault(call_id, index)
        if isinstance(message, ToolMessage):
            answered_at[message.tool_call_id] = index
    depth = [0] * (len(messages) + 2)
    for call_id, start in called_at.items():
        end = answered_at.get(call_id)
        if end is not None and end > start:
            depth[start + 1] += 1
            depth[end + 1] -= 1
    safe: list[bool] = []
    running = 0
    for position in range(len(messages) + 1):
        running += depth[position]
        safe.append(running == 0)
    return safe
