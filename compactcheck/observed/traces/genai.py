"""The GenAI semantic conventions of OpenTelemetry, in every version the instrumentations emit.

A model call's messages are found, newest convention first, in:

1. ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (and ``gen_ai.system_instructions``):
   span attributes holding JSON (``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``
   with content capture ``SPAN_ONLY``), or the same as structured attributes of the
   ``gen_ai.client.inference.operation.details`` event (``EVENT_ONLY``);
2. one event per message, ``gen_ai.system.message``, ``gen_ai.user.message``,
   ``gen_ai.assistant.message``, ``gen_ai.tool.message`` and ``gen_ai.choice``, with the message
   in the body: log records tied to the span (the v1.28 to v1.30 conventions, the default of
   ``opentelemetry-instrumentation-openai-v2``), or span events;
3. the ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` span events with a JSON
   ``gen_ai.prompt`` / ``gen_ai.completion`` attribute (v1.26 and v1.27);
4. ``gen_ai.prompt.N.role`` / ``.content`` / ``.tool_calls.M.*`` and ``gen_ai.completion.N.*``
   span attributes (OpenLLMetry and older instrumentations).

Each is read into chat completions messages (the parts schema's tool calls and tool call
responses included); a reasoning part is opaque and not read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from compactcheck.observed.traces.flattened import unflatten
from compactcheck.observed.traces.records import SpanEvent

CAPTURE_HINT = (
    "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (v1.30 conventions: the "
    "messages are log events, so export logs too), or =SPAN_ONLY with "
    "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"
)

_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_CALL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})


class ContentError(ValueError):
    """A model call whose messages are missing or cut short; the message says which and why."""


def is_model_call(attributes: Mapping[str, Any]) -> bool:
    """Whether a span's attributes say it is a model call of the GenAI conventions."""
    operation = attributes.get("gen_ai.operation.name")
    if operation is not None:
        return operation in _CALL_OPERATIONS
    return "gen_ai.request.model" in attributes or any(
        key.startswith("gen_ai.prompt.") for key in attributes
    )


def _json(value: Any, what: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise ContentError(
            f"{what} is not whole JSON: cut short (an attribute length limit such as "
            "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT?); nothing is judged from half a message"
        ) from None


def _text(value: Any) -> str | None:
    """The text of a content value: a string, or the text parts of a list of parts."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [
            str(part.get("text", part.get("content", "")))
            for part in value
            if isinstance(part, dict) and part.get("type", "text") == "text"
        ]
        return "\n".join(texts)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _arguments(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, separators=(",", ":"), ensure_ascii=False)


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {
        "id": str(call_id or ""),
        "type": "function",
        "function": {"name": str(name or ""), "arguments": _arguments(arguments)},
    }


def from_parts(messages: Any, what: str) -> list[dict[str, Any]]:
    """Messages of the parts schema (``{"role", "parts": [...]}``) as chat messages."""
    messages = _json(messages, what)
    if not isinstance(messages, list):
        raise ContentError(f"{what} is not a list of messages")
    out: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, dict):
            raise ContentError(f"{what} holds a message that is not an object")
        role = str(message.get("role", "user"))
        parts = message.get("parts")
        if not isinstance(parts, list):
            raise ContentError(f"{what}: a {role} message has no parts")
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("content", "")))
            elif kind == "tool_call":
                calls.append(_call(part.get("id"), part.get("name"), part.get("arguments")))
            elif kind == "tool_call_response":
                response = part.get("response", part.get("result"))
                text = response if isinstance(response, str) else _text(response) or ""
                out.append(
                    {"role": "tool", "tool_call_id": str(part.get("id", "")), "content": text}
                )
        if role == "tool":
            continue
        if role == "assistant":
            said: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
            if calls:
                said["tool_calls"] = calls
            if texts or calls:
                out.append(said)
        elif texts:
            out.append(
                {
                    "role": role if role in ("system", "developer") else "user",
                    "content": "\n".join(texts),
                }
            )
    return out


def _instructions(value: Any) -> list[dict[str, Any]]:
    parts = _json(value, "gen_ai.system_instructions")
    if isinstance(parts, str):
        return [{"role": "system", "content": parts}]
    if not isinstance(parts, list):
        return []
    text = "\n".join(
        str(p.get("content", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text"
    )
    return [{"role": "system", "content": text}] if text else []


def _legacy_message(role: str, body: Any) -> dict[str, Any] | None:
    """One v1.30 message event's body as a chat message; None when its content was not kept."""
    if not isinstance(body, dict):
        return None
    if role == "assistant":
        calls = [
            _call(
                c.get("id"),
                (c.get("function") or {}).get("name"),
                (c.get("function") or {}).get("arguments"),
            )
            for c in body.get("tool_calls") or ()
            if isinstance(c, dict)
        ]
        content = _text(body.get("content"))
        if not calls and content is None:
            return None
        # With content capture off, a call keeps its id and name but not its arguments.
        if any("arguments" not in (c.get("function") or {}) for c in body.get("tool_calls") or ()):
            return None
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        return message
    content = _text(body.get("content"))
    if content is None:
        return None
    if role == "tool":
        # v1.30 events name the call ``id``; the OpenAI messages of v1.26/v1.27 ``tool_call_id``.
        call_id = body.get("tool_call_id", body.get("id", ""))
        return {"role": "tool", "tool_call_id": str(call_id), "content": content}
    return {"role": role, "content": content}


def _legacy(events: Sequence[SpanEvent]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    history: list[dict[str, Any]] = []
    output: list[dict[str, Any]] = []
    for event in events:
        role = _MESSAGE_EVENTS.get(event.name)
        body = event.body if event.body is not None else dict(event.attributes)
        if role is not None:
            message = _legacy_message(role, body)
            if message is None:
                raise ContentError(
                    f"the {event.name} event holds no message content: {CAPTURE_HINT}"
                )
            history.append(message)
        elif event.name == "gen_ai.choice":
            said = body.get("message") if isinstance(body, dict) else None
            message = _legacy_message("assistant", said) if isinstance(said, dict) else None
            if message is None:
                raise ContentError(
                    f"the gen_ai.choice event holds no message content: {CAPTURE_HINT}"
                )
            output.append(message)
    return history, output


def _plain(messages: Any, what: str) -> list[dict[str, Any]]:
    """A v1.26 prompt or completion: a JSON list of chat-like messages."""
    found = _json(messages, what)
    if isinstance(found, dict):
        found = [found]
    if not isinstance(found, list):
        raise ContentError(f"{what} is not a list of messages")
    out = []
    for item in found:
        if not isinstance(item, dict):
            continue
        role = str(item.get("role", "assistant"))
        message = _legacy_message(role if role in _MESSAGE_EVENTS.values() else "user", item)
        if message is not None:
            out.append(message)
    return out


def _parts(content: Any) -> Any:
    """A content attribute: a list of parts written as JSON, or the text itself."""
    if isinstance(content, str) and content[:1] == "[":
        try:
            parts = json.loads(content)
        except ValueError:
            return content
        if isinstance(parts, list) and all(isinstance(p, dict) for p in parts):
            return parts
    return content


def _numbered(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """OpenLLMetry's ``gen_ai.prompt.N.*`` messages."""
    out: list[dict[str, Any]] = []
    for item in unflatten(attributes, prefix):
        if not isinstance(item, dict):
            continue
        role = str(item.get("role", "user"))
        calls = [
            _call(c.get("id"), c.get("name"), c.get("arguments"))
            for c in item.get("tool_calls") or ()
            if isinstance(c, dict)
        ]
        content = item.get("content")
        if content is None and not calls:
            raise ContentError(f"{prefix}: a {role} message has no content")
        text = _text(_parts(content))
        if role == "assistant":
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                message["tool_calls"] = calls
            out.append(message)
        elif role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(item.get("tool_call_id", "")),
                    "content": text or "",
                }
            )
        else:
            out.append({"role": role, "content": text or ""})
    return out


def read_call(
    attributes: Mapping[str, Any], events: Sequence[SpanEvent]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None, str]:
    """A GenAI model call's history, its answer (None if not recorded) and the convention read.

    ``events`` are the span's own events and the log events tied to it, in time order.
    ContentError when the call holds no message content, or only part of it.
    """
    head = (
        _instructions(attributes["gen_ai.system_instructions"])
        if ("gen_ai.system_instructions" in attributes)
        else []
    )
    if "gen_ai.input.messages" in attributes:
        history = head + from_parts(attributes["gen_ai.input.messages"], "gen_ai.input.messages")
        output = attributes.get("gen_ai.output.messages")
        answer = from_parts(output, "gen_ai.output.messages") if output is not None else None
        return history, answer, "gen_ai.input.messages"
    for event in events:
        if event.name == _DETAILS_EVENT and "gen_ai.input.messages" in event.attributes:
            found = event.attributes
            extra = (
                _instructions(found["gen_ai.system_instructions"])
                if ("gen_ai.system_instructions" in found)
                else []
            )
            history = extra + from_parts(found["gen_ai.input.messages"], "gen_ai.input.messages")
            output = found.get("gen_ai.output.messages")
            answer = from_parts(output, "gen_ai.output.messages") if output is not None else None
            return history, answer, f"{_DETAILS_EVENT} event"
    if any(e.name in _MESSAGE_EVENTS or e.name == "gen_ai.choice" for e in events):
        history, output_events = _legacy(events)
        return history, output_events or None, "gen_ai.*.message events"
    for event in events:
        if event.name == "gen_ai.content.prompt" and "gen_ai.prompt" in event.attributes:
            history = _plain(event.attributes["gen_ai.prompt"], "gen_ai.prompt")
            completion = next(
                (
                    e.attributes.get("gen_ai.completion")
                    for e in events
                    if e.name == "gen_ai.content.completion"
                ),
                None,
            )
            answer = _plain(completion, "gen_ai.completion") if completion is not None else None
            return history, answer, "gen_ai.content.prompt event"
    if any(key.startswith("gen_ai.prompt.") for key in attributes):
        history = _numbered(attributes, "gen_ai.prompt")
        answer = _numbered(attributes, "gen_ai.completion") or None
        return history, answer, "gen_ai.prompt.N attributes"
    raise ContentError(f"a GenAI model call without message content: {CAPTURE_HINT}")


__all__ = ["CAPTURE_HINT", "ContentError", "from_parts", "is_model_call", "read_call"]
