"""OpenInference spans (Phoenix and its instrumentations): ``llm.input_messages.*`` and friends.

An LLM span (``openinference.span.kind`` ``LLM``) holds its request twice: whole, as JSON in
``input.value`` (the provider's own request where the instrumentation wraps a client: OpenAI,
Anthropic, ...), and flattened into ``llm.input_messages.N.message.*``. The request is read in
its own format where ``input.value`` is one; otherwise (LangChain, whose ``input.value`` is its
own serialisation) the flattened messages are read as chat completions. The answer is read from
``output.value`` in the request's format, or from ``llm.output_messages``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compactcheck.invariants.formats import CHAT, HISTORY_FIELD, Format, detect_format
from compactcheck.observed.traces.flattened import unflatten
from compactcheck.observed.traces.genai import ContentError

HIDDEN_HINT = (
    "OpenInference hid it (__REDACTED__): unset OPENINFERENCE_HIDE_INPUTS, "
    "OPENINFERENCE_HIDE_INPUT_MESSAGES and OPENINFERENCE_HIDE_INPUT_TEXT (or the TraceConfig "
    "fields of the same names)"
)
_REDACTED = "__REDACTED__"


def is_model_call(attributes: Mapping[str, Any]) -> bool:
    """Whether an OpenInference span is a model call."""
    return attributes.get("openinference.span.kind") == "LLM"


def _content(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = message.get("contents")
    if isinstance(parts, list):
        texts = [
            str((part.get("message_content") or {}).get("text", ""))
            for part in parts
            if isinstance(part, dict)
            and (part.get("message_content") or {}).get("type", "text") == "text"
        ]
        return "\n".join(texts)
    return None


def _chat(listed: list[Any], what: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in listed:
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, dict):
            raise ContentError(f"{what} holds an item that is not a message")
        role = str(message.get("role", "user"))
        text = _content(message)
        if text == _REDACTED:
            raise ContentError(f"{what}: {HIDDEN_HINT}")
        calls = [
            {
                "id": str((c.get("tool_call") or {}).get("id", "")),
                "type": "function",
                "function": {
                    "name": str(((c.get("tool_call") or {}).get("function") or {}).get("name", "")),
                    "arguments": str(
                        ((c.get("tool_call") or {}).get("function") or {}).get("arguments", "{}")
                    ),
                },
            }
            for c in message.get("tool_calls") or ()
            if isinstance(c, dict)
        ]
        if role in ("assistant", "ai", "model"):
            said: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                said["tool_calls"] = calls
            out.append(said)
        elif role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(message.get("tool_call_id", "")),
                    "content": text or "",
                }
            )
        else:
            out.append(
                {"role": role if role in ("system", "developer") else "user", "content": text or ""}
            )
    return out


def _request(attributes: Mapping[str, Any]) -> tuple[Format, dict[str, Any]] | None:
    """The provider request in ``input.value``, when it is one (not LangChain's own JSON)."""
    value = attributes.get("input.value")
    if not isinstance(value, str) or attributes.get("input.mime_type") != "application/json":
        return None
    if value == _REDACTED:
        raise ContentError(f"input.value: {HIDDEN_HINT}")
    try:
        data = json.loads(value)
    except ValueError:
        raise ContentError(
            "input.value is not whole JSON: cut short (an attribute length limit?); nothing is "
            "judged from half a message"
        ) from None
    if not isinstance(data, dict):
        return None
    found = detect_format(data)
    if found is None or not isinstance(data.get(HISTORY_FIELD[found]), list):
        return None
    # LangChain's input.value is {"messages": [[{lc: 1, ...}]]}: a list of lists, not a request.
    if any(isinstance(item, list) for item in data[HISTORY_FIELD[found]]):
        return None
    return found, data


def _answer(format: Format, attributes: Mapping[str, Any]) -> list[Any] | None:
    """What the answer adds to the history, as items of ``format``; None when not recorded."""
    value = attributes.get("output.value")
    data: Any = None
    if isinstance(value, str) and attributes.get("output.mime_type") == "application/json":
        try:
            data = json.loads(value)
        except ValueError:
            data = None
    if isinstance(data, dict):
        if format == CHAT and isinstance(data.get("choices"), list) and data["choices"]:
            message = data["choices"][0].get("message")
            if isinstance(message, dict):
                return [message]
        if format == "anthropic" and isinstance(data.get("content"), list):
            return [{"role": "assistant", "content": data["content"]}]
        if format == "openai-responses" and isinstance(data.get("output"), list):
            return list(data["output"])
        if format == "gemini" and isinstance(data.get("candidates"), list) and data["candidates"]:
            content = data["candidates"][0].get("content")
            if isinstance(content, dict):
                return [content]
    if format == CHAT:
        listed = unflatten(attributes, "llm.output_messages")
        if listed:
            try:
                return _chat(listed, "llm.output_messages")
            except ContentError:
                return None
    return None


def read_call(
    attributes: Mapping[str, Any],
) -> tuple[Format, dict[str, Any], list[Any] | None, str]:
    """An LLM span's request (format, request object), its answer and the convention read."""
    found = _request(attributes)
    if found is not None:
        format, request = found
        return format, request, _answer(format, attributes), "openinference input.value"
    listed = unflatten(attributes, "llm.input_messages")
    if not listed:
        raise ContentError(
            "an OpenInference LLM span without input messages: the inputs were not recorded "
            f"or {HIDDEN_HINT}"
        )
    history = _chat(listed, "llm.input_messages")
    return (
        CHAT,
        {"messages": history},
        _answer(CHAT, attributes),
        "openinference llm.input_messages",
    )


def agent_hint(attributes: Mapping[str, Any]) -> str:
    """Who made the call, where the span says: its agent, or its LangGraph node."""
    for key in ("agent.name", "graph.node.id"):
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    metadata = attributes.get("metadata")
    if isinstance(metadata, str) and metadata.startswith("{"):
        try:
            data = json.loads(metadata)
        except ValueError:
            return ""
        node = data.get("langgraph_node") if isinstance(data, dict) else None
        if isinstance(node, str):
            return node
    return ""


__all__ = ["HIDDEN_HINT", "agent_hint", "is_model_call", "read_call"]
