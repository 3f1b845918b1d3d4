"""A compactor that hangs (for two seconds) on histories with a parallel tool batch."""

import time
from typing import Any


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sleep past any short timeout on parallel calls; else keep the head and the last two."""
    if any(len(message.get("tool_calls") or ()) >= 2 for message in messages):
        time.sleep(2)
    start = max(0, len(messages) - 2)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    return [dict(m) for i, m in enumerate(messages) if i < 2 or i >= start]
