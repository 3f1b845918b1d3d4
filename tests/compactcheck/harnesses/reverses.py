"""A protocol v1 harness that answers pipelined requests out of order: it holds the compact
requests it has read and answers them last first, once it holds ``--group`` of them or no more
input is waiting. Each answer echoes its request's messages, so a mismatched answer shows.

Options: --group N (default 4); --keep-last N (answer only the last N messages of a longer
history: a compactor that forgets how the conversation began); --max-in-flight N (declared in
the start answer); --log PATH (appends ``PID SEQ DIGEST`` there for every compact request it
reads, DIGEST naming its input).
"""

from __future__ import annotations

import hashlib
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
    keep = int(option("--keep-last", "0"))

    def answer(request: dict[str, Any]) -> None:
        messages = request["input"]["messages"]
        if keep and len(messages) > keep:
            messages = messages[-keep:]
        send({"seq": request["seq"], "result": {"messages": messages}})

    held: list[dict[str, Any]] = []
    buffer = b""
    while True:
        waiting = select.select([0], [], [], 0.05)[0]
        if not waiting:
            # Nothing more to read now: answer what is held, last first.
            for request in reversed(held):
                answer(request)
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
                    digest = hashlib.sha256(json.dumps(request["input"]).encode()).hexdigest()
                    file.write(f"{os.getpid()} {request['seq']} {digest[:16]}\n")
            held.append(request)
            if len(held) >= group:
                for request in reversed(held):
                    answer(request)
                held.clear()


if __name__ == "__main__":
    main()
