"""A protocol v1 harness that dies (exit 3) on any history with a parallel tool batch.

On the others it compacts well: system and first user message, and a tail that keeps pairs.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TAIL = 6


def send(data: object) -> None:
    """Write one protocol line and flush it."""
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The head and a tail whose start moves back to the call its results answer."""
    if any(len(message.get("tool_calls") or ()) >= 2 for message in messages):
        sys.stderr.write("dies_on_parallel: cannot handle parallel calls, exiting\n")
        sys.stderr.flush()
        sys.exit(3)
    start = max(0, len(messages) - TAIL)
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    return [message for index, message in enumerate(messages) if index < 2 or index >= start]


def main() -> None:
    """Serve requests until stop or end of input."""
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            implementation = {"name": "dies-on-parallel", "version": "0.0.1", "views": ["messages"]}
            send({"version": 1, "implementation": {**implementation, "language": "python"}})
        elif request["cmd"] == "stop":
            return
        else:
            messages = compact(request["input"]["messages"])
            send({"seq": request["seq"], "result": {"messages": messages}})


if __name__ == "__main__":
    main()
