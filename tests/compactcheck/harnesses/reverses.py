"""A protocol v1 harness that answers pipelined requests out of order: it holds the compact
requests it has read and answers them last first, once it holds ``--group`` of them or no more
input is waiting. Each answer echoes its request's messages, so a mismatched answer shows.

Options: --group N (default 4), --max-in-flight N (declared in the start answer), --log PATH
(appends ``PID SEQ`` there for every compact request it reads).
"""

from __future__ import annotations

import json
import os
import select
import sys
from typing import Any


def option(name: str, default: str) -> str:
    """The value after ``name`` on the command line."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def send(data: object) -> None:
    """Write one protocol line, unbuffered."""
    os.write(1, (json.dumps(data) + "\n").encode())


def main() -> None:
    """Serve until stop or the end of input."""
    group = int(option("--group", "4"))
    declared = option("--max-in-flight", "")
    log = option("--log", "")
    held: list[dict[str, Any]] = []
    buffer = b""
    while True:
        waiting = select.select([0], [], [], 0.05)[0]
        if not waiting:
            # Nothing more to read now: answer what is held, last first.
            for request in reversed(held):
                send({"seq": request["seq"], "result": {"messages": request["input"]["messages"]}})
            held.clear()
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            if not line.strip():
                continue
            request = json.loads(line)
            if request["cmd"] == "stop":
                return
            if request["cmd"] == "start":
                start: dict[str, Any] = {
                    "version": 1,
                    "implementation": {"name": "reverses", "views": ["messages"]},
                }
                if declared:
                    start["maxInFlight"] = int(declared)
                send(start)
                continue
            if log:
                with open(log, "a", encoding="utf-8") as file:
                    file.write(f"{os.getpid()} {request['seq']}\n")
            held.append(request)
            if len(held) >= group:
                for request in reversed(held):
                    send(
                        {
                            "seq": request["seq"],
                            "result": {"messages": request["input"]["messages"]},
                        }
                    )
                held.clear()


if __name__ == "__main__":
    main()
