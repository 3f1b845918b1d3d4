"""OpenAI chat dicts to inspect-ai chat messages (``inspect_ai.model``) and back, losslessly.

Each chat dict is one message of its role; text parts become ``ContentText`` parts. inspect-ai
holds a call's arguments as a dict and has no message name and no assistant without content, so
what it cannot hold travels in the message's ``metadata`` (which inspect-ai never sends to a
model): the argument strings by call id, the name, and that the content was absent. A tool
message carries the called function's name, as inspect-ai's own tool messages do. A message
inspect-ai writes itself (a summary, a placeholder) reads back by its role and text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inspect_ai._util.content import ContentText
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall

ARGUMENTS = "compactcheck_arguments"
NAME = "compactcheck_name"
NO_CONTENT = "compactcheck_no_content"


def _content(content: Any) -> str | list[Any]:
    if isinstance(content, str):
        return content
    return [ContentText(text=part["text"]) for part in content]


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def to_inspect(messages: Sequence[dict[str, Any]]) -> list[ChatMessage]:
    """inspect-ai messages for OpenAI chat dicts."""
    converted: list[ChatMessage] = []
    functions: dict[str, str] = {}
    for index, message in enumerate(messages):
        role = message["role"]
        metadata: dict[str, Any] = {}
        if message.get("name") is not None:
            metadata[NAME] = message["name"]
        content = message.get("content")
        item: ChatMessage
        if role == "system":
            item = ChatMessageSystem(content=_content(content))
        elif role == "user":
            item = ChatMessageUser(content=_content(content))
        elif role == "assistant":
            calls = message.get("tool_calls") or None
            if content is None:
                metadata[NO_CONTENT] = True
            if calls:
                metadata[ARGUMENTS] = {c["id"]: c["function"]["arguments"] for c in calls}
                for call in calls:
                    functions[call["id"]] = call["function"]["name"]
            item = ChatMessageAssistant(
                content=_content("" if content is None else content),
                tool_calls=[
                    ToolCall(
                        id=call["id"],
                        function=call["function"]["name"],
                        arguments=_arguments(call["function"]["arguments"]),
                    )
                    for call in calls
                ]
                if calls
                else None,
            )
        elif role == "tool":
            item = ChatMessageTool(
                content=_content(content),
                tool_call_id=message["tool_call_id"],
                function=functions.get(message["tool_call_id"]),
            )
        else:
            raise ValueError(f"message {index} ({role}): unknown role")
        if metadata:
            item.metadata = metadata
        converted.append(item)
    return converted


def _text(content: str | list[Any], index: int) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if not isinstance(part, ContentText):
            raise ValueError(f"message {index}: a {part.type} part has no chat form")
        parts.append({"type": "text", "text": part.text})
    return parts


def from_inspect(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for inspect-ai messages."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        metadata = message.metadata or {}
        item: dict[str, Any] = {"role": message.role}
        if isinstance(message, ChatMessageTool):
            item["tool_call_id"] = message.tool_call_id
            item["content"] = _text(message.content, index)
        elif isinstance(message, ChatMessageAssistant):
            if not metadata.get(NO_CONTENT):
                item["content"] = _text(message.content, index)
            if message.tool_calls:
                raw = metadata.get(ARGUMENTS, {})
                item["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.function,
                            "arguments": raw.get(call.id, json.dumps(call.arguments)),
                        },
                    }
                    for call in message.tool_calls
                ]
            elif "content" not in item:
                item["content"] = _text(message.content, index)
        else:
            item["content"] = _text(message.content, index)
        if NAME in metadata:
            item["name"] = metadata[NAME]
        converted.append(item)
    return converted
