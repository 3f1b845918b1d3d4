"""Calling a Python compactor with a view's input: the part the in-process backend and the
isolated worker share. Standard library and orjson only, so that a worker starts quickly."""

from __future__ import annotations

import json
import traceback
from typing import Any

import orjson

# The views and the messages view's formats, as the protocol names them
# (compactcheck.invariants.View and compactcheck.invariants.formats.FORMATS, without importing the
# laws).
VIEW_NAMES = ("messages", "snapshot", "session")
FORMAT_NAMES = ("openai-chat", "anthropic", "openai-responses", "gemini")


def argument_of(view: str, payload: dict[str, Any]) -> Any:
    """What the callable is handed for one request of ``view``.

    messages: the list of chat dicts; snapshot: the compactor input as JSON data; session: the
    payload itself (``{"log": [...], "mode": ...}``).
    """
    if view == "messages":
        # A provider format's request goes to the callable whole (a chat list, as it was).
        return payload["request"] if "request" in payload else payload["messages"]
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


# The request field holding the history, per format (compactcheck.invariants.formats.HISTORY_FIELD,
# without importing the laws into a worker).
_HISTORY_FIELD = {"anthropic": "messages", "openai-responses": "input", "gemini": "contents"}


def _json_size(output: Any) -> int:
    """Bytes of the answer as UTF-8 JSON, anything else written as its ``str``.

    orjson, several times faster; the standard library where orjson refuses (non-string keys,
    integers past 64 bits, nesting past 254 levels), which raises what is not JSON data at all.
    """
    try:
        return len(orjson.dumps(output, default=str))
    except TypeError:
        return len(json.dumps(output, default=str, ensure_ascii=False).encode("utf-8", "replace"))


def oversize(size: int, max_answer_bytes: int) -> str:
    """The problem of an answer of ``size`` bytes of JSON, or '' within the cap."""
    if size <= max_answer_bytes:
        return ""
    return (
        f"the answer is {size} bytes of JSON, over the cap of {max_answer_bytes} (max_answer_bytes)"
    )


def result_of(
    view: str, output: Any, max_answer_bytes: int | None, payload: dict[str, Any] | None = None
) -> tuple[dict[str, Any] | None, str]:
    """The protocol result for what the callable returned, or ``(None, problem)``.

    Handed a provider request, a callable may return the whole request, or only its history
    list (the rest of the request is then the one it was handed). ``max_answer_bytes`` None:
    the caller serialises the answer itself and judges its JSON and size there (the isolated
    worker, which writes it as a line anyway).
    """
    if max_answer_bytes is not None:
        try:
            size = _json_size(output)
        except (TypeError, ValueError, RecursionError) as error:
            return None, f"the answer is not JSON data: {type(error).__name__}: {error}"
        problem = oversize(size, max_answer_bytes)
        if problem:
            return None, problem
    if view == "messages":
        if payload is None or "request" not in payload:
            return {"messages": output}, ""
        if isinstance(output, list):
            field = _HISTORY_FIELD.get(str(payload.get("format")), "messages")
            return {"request": {**payload["request"], field: output}}, ""
        if not isinstance(output, dict):
            return None, (
                f"expected the {payload.get('format')} request (a dict) or its history (a "
                f"list), found {type(output).__name__}"
            )
        return {"request": output}, ""
    if view == "snapshot":
        return {"draft": output}, ""
    if not isinstance(output, dict):
        return None, f"expected a dict with 'appended', found {type(output).__name__}"
    return output, ""


def waivers_of(function: object) -> dict[str, str]:
    """The laws a compactor declares it does not promise (``compactcheck_waivers``), by reason."""
    return dict(getattr(function, "compactcheck_waivers", None) or {})
