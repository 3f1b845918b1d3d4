#!/usr/bin/env python3
"""A compactcheck harness in Python (standard library only) around a messages-view compactor.

It speaks compactcheck's JSON-lines protocol, version 1, on stdin and stdout:

    compactcheck run "cmd:python examples/python-harness/harness.py"
    compactcheck run "cmd:python examples/python-harness/harness.py mypackage.compaction:compact"

With no argument it serves the example compactor below; with ``module:function`` it imports your
function (from the current directory or PYTHONPATH) and serves that instead. The function takes a
list of OpenAI chat message dicts and returns a new list. In-process, ``py:`` targets are simpler;
this harness is for compactors that must run in their own environment (another virtualenv,
another Python). Diagnostics go to stderr: stdout carries protocol lines only.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

Message = dict[str, Any]
Compactor = Callable[[list[Message]], list[Message]]

PROTOCOL_VERSION = 1
MAX_MESSAGES = int(os.environ.get("COMPACT_MAX_MESSAGES", "12"))


# ============================================================================================
# REPLACE THIS FUNCTION with a call into your own compactor (or pass module:function instead).
# It must return a new list and leave its input alone; raising is fine (the harness answers
# "errored" with the message and traceback).
# ============================================================================================
def compact_messages(messages: list[Message]) -> list[Message]:
    """The compactor this harness serves by default."""
    return example_compactor(messages, MAX_MESSAGES)


# --- The example compactor ------------------------------------------------------------------
# Keep the head (every system message and the first user message), replace one middle span by a
# single summary message, keep the longest recent tail that fits; never cut between a tool call
# and its results.


def example_compactor(messages: list[Message], max_messages: int) -> list[Message]:
    """Head, one summary, and a recent tail of at most ``max_messages`` messages in all."""
    count = len(messages)
    if count <= max_messages:
        return list(messages)
    safe = safe_cuts(messages)
    head, seen_user = 0, False
    for index, message in enumerate(messages):
        # Every system message stays in the head, so instructions are never summarised away.
        if message["role"] == "system":
            head = index + 1
        elif message["role"] == "user" and not seen_user:
            seen_user = True
            head = max(head, index + 1)
    while not safe[head]:
        head += 1
    starts = [start for start in range(head + 1, count) if safe[start]]
    if not starts:
        return list(messages)
    fitting = [start for start in starts if head + 1 + count - start <= max_messages]
    tail = fitting[0] if fitting else starts[-1]
    return [*messages[:head], summarise(messages[head:tail]), *messages[tail:]]


def call_ids(message: Message) -> list[str]:
    """The ids of the tool calls an assistant message makes."""
    if message["role"] != "assistant":
        return []
    return [call["id"] for call in message.get("tool_calls") or []]


def safe_cuts(messages: list[Message]) -> list[bool]:
    """For each position 0..n, whether a cut just before it keeps every call with its results."""
    called_at: dict[str, int] = {}
    last_result_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call_id in call_ids(message):
            called_at.setdefault(call_id, index)
        if message["role"] == "tool":
            last_result_at[message["tool_call_id"]] = index
    delta = [0] * (len(messages) + 2)
    for call_id, called in called_at.items():
        answered = last_result_at.get(call_id)
        if answered is not None and answered > called:
            delta[called + 1] += 1
            delta[answered + 1] -= 1
    safe, open_calls = [], 0
    for position in range(len(messages) + 1):
        open_calls += delta[position]
        safe.append(open_calls == 0)
    return safe


def text_of(content: Any) -> str:
    """The plain text of a content: a string, or text parts joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content)


def first_line(text: str) -> str:
    """The first line of a text."""
    return text.partition("\n")[0]


def summarise(span: list[Message]) -> Message:
    """One user message standing for a span: user words whole, calls with arguments."""
    lines = [f"Summary of {len(span)} earlier messages, replaced by this one:"]
    for message in span:
        text = text_of(message.get("content"))
        if message["role"] == "user":
            lines.append(f"- user said: {text}")
        elif message["role"] == "tool":
            lines.append(f"- tool result {message['tool_call_id']}: {first_line(text)}")
        else:
            if text:
                lines.append(f"- {message['role']}: {first_line(text)}")
            for call in message.get("tool_calls") or []:
                function = call["function"]
                lines.append(
                    f"- assistant called {function['name']} {function['arguments']} ({call['id']})"
                )
    return {"role": "user", "content": "\n".join(lines)}


# --- Protocol plumbing (version 1): keep as it is ----------------------------------------------


def answer(request: dict[str, Any], compactor: Compactor, name: str) -> dict[str, Any] | None:
    """The answer line to one request (None for a request that has no answer)."""
    if request["cmd"] == "start":
        implementation = {
            "name": name,
            "version": "1.0.0",
            "language": "python",
            "views": ["messages"],
        }
        return {"version": PROTOCOL_VERSION, "implementation": implementation}
    if request["cmd"] != "compact":
        print(f"ignoring unknown command {request['cmd']!r}", file=sys.stderr)
        return None
    seq = request["seq"]  # opaque: echo it exactly as received
    if request["view"] != "messages":
        reason = f"this harness compacts the messages view, not {request['view']}"
        return {"seq": seq, "skipped": {"reason": reason}}
    try:
        messages = compactor(request["input"]["messages"])
    except Exception as error:  # any failure of the compactor is its answer, not the harness's
        message = str(error) or type(error).__name__
        return {"seq": seq, "errored": {"message": message, "traceback": traceback.format_exc()}}
    return {"seq": seq, "result": {"messages": messages}}


def load(spec: str) -> Compactor:
    """The function a ``module:function`` argument names."""
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        sys.exit(f"expected module:function, e.g. mypackage.compaction:compact; got {spec!r}")
    sys.path.insert(0, os.getcwd())
    compactor: Compactor = getattr(importlib.import_module(module_name), attribute)
    return compactor


def serve(compactor: Compactor, name: str) -> None:
    """Answer requests from stdin until stop or end of input."""
    # compactcheck may send several requests before it reads an answer (it matches answers to
    # requests by seq); answering each line in turn, as here, is all that asks of a harness.
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("cmd") == "stop":
            return
        reply = answer(request, compactor, name)
        if reply is not None:
            # One line per answer, flushed at once: a pipe is block-buffered otherwise.
            sys.stdout.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        serve(load(sys.argv[1]), sys.argv[1])
    else:
        serve(compact_messages, "example-python-compactor")
