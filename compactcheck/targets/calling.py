"""Calling a Python compactor with a view's input: the part the in-process backend and the
isolated worker share. Standard library only, so that a worker starts quickly."""

from __future__ import annotations

import json
import traceback
from typing import Any

# The views, as the protocol names them (invariants.View, without importing the laws).
VIEW_NAMES = ("messages", "snapshot", "session")


def argument_of(view: str, payload: dict[str, Any]) -> Any:
    """What the callable is handed for one request of ``view``.

    messages: the list of chat dicts; snapshot: the compactor input as JSON data; session: the
    payload itself (``{"log": [...], "mode": ...}``).
    """
    if view == "messages":
        return payload["messages"]
    if view == "snapshot":
        return payload["compactorInput"]
    return payload


def described(error: BaseException, *, memory_note: str = "") -> str:
    """``Type: message (at file:line)``, where the compactor raised it."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r}) raised by the compactor{where}"
    if isinstance(error, KeyboardInterrupt):
        return f"KeyboardInterrupt raised by the compactor itself, not a Ctrl-C of the run{where}"
    if isinstance(error, MemoryError):
        return f"MemoryError: the compactor ran out of memory{memory_note}{where}"
    return f"{type(error).__name__}: {error}{where}"


def result_of(view: str, output: Any, max_answer_bytes: int) -> tuple[dict[str, Any] | None, str]:
    """The protocol result for what the callable returned, or ``(None, problem)``."""
    try:
        size = len(json.dumps(output, default=str))
    except (TypeError, ValueError, RecursionError) as error:
        return None, f"the answer is not JSON data: {type(error).__name__}: {error}"
    if size > max_answer_bytes:
        return None, (
            f"the answer is {size} bytes of JSON, over the cap of {max_answer_bytes} "
            "(max_answer_bytes)"
        )
    if view == "messages":
        return {"messages": output}, ""
    if view == "snapshot":
        return {"draft": output}, ""
    if not isinstance(output, dict):
        return None, f"expected a dict with 'appended', found {type(output).__name__}"
    return output, ""
