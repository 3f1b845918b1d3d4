"""What the tracing services' JSON exports share: times, nested objects, LangChain messages,
and a recorded input read as a request in its provider format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from compactcheck.invariants.formats import CHAT, HISTORY_FIELD, Format, detect_format

_LANGCHAIN_ROLES = {
    "human": "user",
    "HumanMessage": "user",
    "user": "user",
    "ai": "assistant",
    "AIMessage": "assistant",
    "assistant": "assistant",
    "AIMessageChunk": "assistant",
    "system": "system",
    "SystemMessage": "system",
    "tool": "tool",
    "ToolMessage": "tool",
}


def field_of(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The object under ``key``, or an empty one when it is absent or not an object."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def nanos(value: Any) -> int:
    """An ISO 8601 time (or epoch seconds) as nanoseconds since the epoch; 0 when absent."""
    if isinstance(value, (int, float)):
        return int(value * 1e9) if value < 1e12 else int(value)
    if not isinstance(value, str) or not value:
        return 0
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000


def langchain_message(item: Any) -> dict[str, Any]:
    """One LangChain message (any of its dumps) as a chat completions message."""
    if not isinstance(item, dict):
        raise ValueError("a message that is not an object")
    if item.get("lc") == 1:
        kind = str((item.get("id") or ["?"])[-1])
        fields: Mapping[str, Any] = item.get("kwargs") or {}
    elif isinstance(item.get("data"), dict):
        kind, fields = str(item.get("type")), item["data"]
    else:
        kind, fields = str(item.get("type") or item.get("role")), item
    role = _LANGCHAIN_ROLES.get(kind)
    if role is None:
        raise ValueError(f"LangChain message kind {kind!r} is not one compactcheck reads")
    content = fields.get("content", "")
    if isinstance(content, list):
        content = "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p)
            for p in content
            if not isinstance(p, dict) or p.get("type", "text") == "text"
        )
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        calls = fields.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "id": str(call.get("id", "")),
                    "type": "function",
                    "function": {
                        "name": str(call.get("name", "")),
                        "arguments": json.dumps(call.get("args", {}), separators=(",", ":")),
                    },
                }
                if "function" not in call
                else call
                for call in calls
            ]
            message["content"] = content or None
    if role == "tool":
        message["tool_call_id"] = str(fields.get("tool_call_id", ""))
    return message


def chat_message(item: Any) -> Any:
    """A chat completions message without the fields a client fills with null or nothing
    (``refusal``, ``annotations``, ``audio``, ``function_call``): they are not the message."""
    if not isinstance(item, dict):
        return item
    return {k: v for k, v in item.items() if v is not None or k == "content"}


def request_of(value: Any) -> tuple[Format, dict[str, Any]] | None:
    """A recorded input as a request: a message list (chat or a provider's), or a request.

    Chat messages lose the client's null fields (``chat_message``).
    """
    found = _request(value)
    if found is None or found[0] != CHAT:
        return found
    format, request = found
    listed = request[HISTORY_FIELD[format]]
    return format, {**request, HISTORY_FIELD[format]: [chat_message(m) for m in listed]}


def _request(value: Any) -> tuple[Format, dict[str, Any]] | None:
    """The request a recorded input is, as recorded."""
    if isinstance(value, list):
        found = detect_format(value)
        if found is None:
            return None
        return found, {HISTORY_FIELD[found]: value}
    if isinstance(value, dict):
        found = detect_format(value)
        if found is not None and isinstance(value.get(HISTORY_FIELD[found]), list):
            return found, value
    return None


__all__ = ["chat_message", "field_of", "langchain_message", "nanos", "request_of"]
