"""Calling a Python compactor with a view's input: the part the in-process backend and the
isolated worker share. Standard library and orjson only, so that a worker starts quickly."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

import orjson

# The views and the messages view's formats, as the protocol names them
# (compactcheck.invariants.View and compactcheck.invariants.formats.FORMATS, without importing the
# laws).
VIEW_NAMES = ("messages", "snapshot", "session")
FORMAT_NAMES = ("openai-chat", "anthropic", "openai-responses", "gemini")
# Where compactcheck's own call sites live (this module's folder).
_HERE = Path(__file__).resolve().parent


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


def described(error: BaseException, *, memory_note: str = "", function: object = None) -> str:
    """``Type: message (at file:line)``, where the compactor raised it.

    An error raised by the call itself, before the compactor's first line ran (a signature
    that takes no argument, or two), is placed where ``function`` is defined, not at
    compactcheck's own call site.
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if frames and code_of(function) is not None and _ours(frames[-1].filename):
        where = _defined_at(function)
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r}) raised by the compactor{where}"
    if isinstance(error, KeyboardInterrupt):
        return f"KeyboardInterrupt raised by the compactor itself, not a Ctrl-C of the run{where}"
    if isinstance(error, MemoryError):
        return f"MemoryError: the compactor ran out of memory{memory_note}{where}"
    return f"{type(error).__name__}: {error}{where}"


def _ours(filename: str) -> bool:
    """Whether a frame is one of compactcheck's own call sites (this module's folder)."""
    return Path(filename).resolve().parent == _HERE


# The request field holding the history, per format (compactcheck.invariants.formats.HISTORY_FIELD,
# without importing the laws into a worker).
_HISTORY_FIELD = {"anthropic": "messages", "openai-responses": "input", "gemini": "contents"}


# What orjson would write but the worker's JSON (the standard library's) refuses: handed to
# _refused, so that the fast path refuses it too.
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _refused(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _json_size(output: Any) -> int:
    """Bytes of the answer as UTF-8 JSON; TypeError for what is not JSON data.

    orjson, several times faster; the standard library where orjson refuses (non-string keys,
    integers past 64 bits, nesting past 254 levels, or what is not JSON data at all, which it
    then names as the isolated worker's own encoding does). What is not JSON data is refused
    here as the worker refuses it: taken on, a datetime in an answer ended the run when its
    corpus entry was written.
    """
    try:
        return len(orjson.dumps(output, default=_refused, option=_STRICT))
    except TypeError:
        return len(
            json.dumps(output, ensure_ascii=False, allow_nan=False).encode("utf-8", "replace")
        )


def oversize(size: int, max_answer_bytes: int) -> str:
    """The problem of an answer of ``size`` bytes of JSON, or '' within the cap."""
    if size <= max_answer_bytes:
        return ""
    return (
        f"the answer is {size} bytes of JSON, over the cap of {max_answer_bytes} (max_answer_bytes)"
    )


def result_of(
    view: str,
    output: Any,
    max_answer_bytes: int | None,
    payload: dict[str, Any] | None = None,
    *,
    function: object = None,
) -> tuple[dict[str, Any] | None, str]:
    """The protocol result for what the callable returned, or ``(None, problem)``.

    Handed a chat list, a callable may return the compacted list or a chat completions request
    holding it as ``messages``; handed a provider request, the whole request, or only its
    history list (the rest of the request is then the one it was handed). Anything else is a
    problem in the user's terms, naming ``function`` where it is defined, the same in this
    process and in the isolated worker. ``max_answer_bytes`` None: the caller serialises the
    answer itself and judges its JSON and size there (the isolated worker, which writes it as a
    line anyway).
    """
    problem = shape_problem(view, output, payload, function)
    if problem:
        return None, problem
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
            if isinstance(output, dict):
                # A chat completions request: its messages are the history, and what else it
                # holds is kept in the output (adapters report their parameters there).
                return output, ""
            return {"messages": list(output) if isinstance(output, tuple) else output}, ""
        if isinstance(output, list | tuple):
            field = _HISTORY_FIELD.get(str(payload.get("format")), "messages")
            return {"request": {**payload["request"], field: list(output)}}, ""
        return {"request": output}, ""
    if view == "snapshot":
        return {"draft": output}, ""
    return output, ""


def shape_problem(
    view: str, output: Any, payload: dict[str, Any] | None, function: object = None
) -> str:
    """What is wrong with the kind of thing a callable returned for ``view``, or ''.

    Only the outer shape is judged here, and that a history list holds dicts (the drivers read
    what is inside, as for any backend): ``compact returned None; it must return ...``, so that
    a forgotten ``return``, JSON text or a framework's message objects are named as what they
    are, alike in this process and in the worker.
    """
    if view == "messages":
        fmt = str(payload.get("format")) if payload is not None and "request" in payload else ""
        chat = not fmt
        items = output.get("messages") if chat and isinstance(output, dict) else output
        if isinstance(items, list | tuple):
            odd = next((i for i, item in enumerate(items) if not isinstance(item, dict)), None)
            if odd is None:
                return ""
            # Framework message objects (LangChain's, say) are not the dicts the format has.
            return (
                f"{_name(function)} returned a list holding a {type(items[odd]).__name__} at "
                f"index {odd}; it must return {fmt + ' history items' if fmt else 'chat messages'}"
                " as dicts of JSON data"
                f"{_defined_at(function)}"
            )
        if chat:
            wanted = (
                "a list of chat messages (or a chat completions request holding them as 'messages')"
            )
        else:
            if isinstance(output, dict):
                return ""
            field = _HISTORY_FIELD.get(fmt, "messages")
            wanted = f"the {fmt} request it was handed (a dict) or its history list ('{field}')"
    elif view == "snapshot":
        if isinstance(output, dict):
            return ""
        wanted = "a snapshot draft (a dict of JSON data)"
    else:
        if isinstance(output, dict):
            return ""
        wanted = "{'appended': [events]} (or {'skipped': reason} to decline)"
    return f"{_returned(function, output)}; it must return {wanted}{_defined_at(function)}"


def _returned(function: object, output: Any) -> str:
    """``compact returned None``, in the user's terms."""
    name = _name(function)
    if output is None:
        return f"{name} returned None (a missing return?)"
    if isinstance(output, str | bytes):
        kind = "JSON text" if output.lstrip()[:1] in ("[", "{", b"[", b"{") else "text"
        return f"{name} returned {kind} (a {type(output).__name__}), not data"
    if isinstance(output, dict):
        keys = ", ".join(repr(key) for key in list(output)[:4])
        return f"{name} returned a dict with keys {keys or 'none'}"
    return f"{name} returned a {type(output).__name__}"


def _name(function: object) -> str:
    """What the user calls the compactor: its function's name."""
    return getattr(function, "__name__", None) or "the compactor"


def _defined_at(function: object) -> str:
    """`` (at file:line)`` of the function's definition, '' when it has no Python code."""
    code = code_of(function)
    return f" (at {code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def code_of(function: object) -> Any:
    """The code object behind a callable (a function, a bound method, a partial, an object
    with ``__call__``), or None."""
    for _ in range(4):
        code = getattr(function, "__code__", None)
        if code is not None:
            return code
        inner = getattr(function, "func", None) or getattr(function, "__func__", None)
        if inner is None:
            try:
                # An object with a ``__call__`` method: that method's code.
                inner = type(function).__call__
            except AttributeError:
                return None
        function = inner
    return None


def waivers_of(function: object) -> dict[str, str]:
    """The laws a compactor declares it does not promise (``compactcheck_waivers``), by reason."""
    return dict(getattr(function, "compactcheck_waivers", None) or {})
