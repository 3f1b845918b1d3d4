"""What a harness's valid answer becomes (an Answer), and what identifies a request whose answer
is served ahead."""

from __future__ import annotations

import json
from typing import Any

from compactcheck.backends.protocol import CompactResponse
from compactcheck.base.backend import Answer
from compactcheck.invariants import View


def answer_of(data: dict[str, Any], parsed: CompactResponse[Any]) -> Answer:
    """The Answer of a valid compact answer whose seq matched its request."""
    after = data.get("inputAfter")
    if parsed.skipped is not None:
        return Answer("skipped", reason=parsed.skipped.reason, input_after=after)
    if parsed.errored is not None:
        message = parsed.errored.message
        if parsed.errored.traceback:
            message = f"{message}\n{parsed.errored.traceback.rstrip()}"
        # compactcheck's own worker marks an answer its compactor got wrong (isolated.py).
        wrong = data["errored"].get("wrongAnswer") is True
        return Answer("errored", reason=message, input_after=after, wrong_answer=wrong)
    result: dict[str, Any] = data["result"]
    return Answer("result", result, input_after=after)


def request_key(view: View, payload: dict[str, Any]) -> str | None:
    """What identifies a request for answers served ahead (None: it cannot be identified)."""
    try:
        return view + json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None
