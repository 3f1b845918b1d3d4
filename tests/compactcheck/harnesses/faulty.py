"""A protocol v1 harness that misbehaves on demand: the last message's text names the fault.

Used by the protocol tests to drive CommandBackend through every fault a real harness can show.
Options change the handshake: --protocol-version N, --name TEXT, --banner (a non-JSON line on
stdout first), --exit-at-start, --silent-start, --ignore-stop.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback


def send(data: object) -> None:
    """Write one protocol line and flush it (a pipe is block-buffered otherwise)."""
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def option(name: str, default: str | None = None) -> str | None:
    """The value after ``name`` on the command line."""
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def misbehave(fault: str, seq: object, messages: list[dict[str, object]]) -> None:
    """Answer one compact request the way ``fault`` says."""
    kind, _, size = fault.partition(":")
    if kind == "echo":
        send({"seq": seq, "result": {"messages": messages}})
    elif kind == "raise":
        try:
            raise ValueError("the compactor broke on purpose")
        except ValueError as error:
            send(
                {
                    "seq": seq,
                    "errored": {"message": str(error), "traceback": traceback.format_exc()},
                }
            )
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "exit":
        sys.stderr.write("faulty: exiting on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "close-stdout":
        sys.stdout.flush()
        os.close(1)
        time.sleep(3600)
    elif kind == "malformed":
        sys.stdout.write("{this is not json\n")
        sys.stdout.flush()
    elif kind == "schema":
        send({"seq": seq, "result": {"messages": [{"role": "robot", "content": "beep"}]}})
    elif kind == "wrong-seq":
        send({"seq": ["not", seq], "result": {"messages": messages}})
    elif kind == "twice":
        # Both lines in one write, so the stale second answer is surely waiting in the pipe.
        line = json.dumps({"seq": seq, "result": {"messages": messages}}) + "\n"
        sys.stdout.write(line + line)
        sys.stdout.flush()
    elif kind == "huge":
        send({"seq": seq, "result": {"messages": [{"role": "user", "content": "x" * int(size)}]}})
    elif kind == "chatty":
        for index in range(int(size) // 100):
            sys.stderr.write(f"chatter {index:08d} " + "." * 82 + "\n")
        sys.stderr.write("faulty: last words before answering\n")
        sys.stderr.flush()
        send({"seq": seq, "result": {"messages": messages}})
    else:
        send({"seq": seq, "errored": {"message": f"unknown fault {fault!r}"}})


def main() -> None:
    """Serve requests until stop or end of input."""
    if "--exit-at-start" in sys.argv:
        sys.stderr.write("faulty: cannot load the compactor\n")
        sys.exit(2)
    if "--banner" in sys.argv:
        print("Welcome to the faulty harness!", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start" and "--silent-start" in sys.argv:
            time.sleep(3600)
        if request["cmd"] == "start":
            send(
                {
                    "version": int(option("--protocol-version", "1") or 1),
                    "implementation": {
                        "name": option("--name", "faulty"),
                        "version": "0.0.1",
                        "language": "python",
                        "views": ["messages"],
                    },
                }
            )
        elif request["cmd"] == "stop":
            if "--ignore-stop" in sys.argv:
                time.sleep(3600)
            sys.stderr.write("faulty: stopped cleanly\n")
            return
        elif request["view"] != "messages":
            send({"seq": request["seq"], "skipped": {"reason": "faulty only compacts messages"}})
        else:
            messages = request["input"]["messages"]
            misbehave(str(messages[-1]["content"]), request["seq"], messages)


if __name__ == "__main__":
    main()
