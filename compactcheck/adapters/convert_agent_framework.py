"""OpenAI chat dicts to Microsoft Agent Framework (agent-framework-core) messages and back,
losslessly.

Each chat dict is one ``Message``: its text as text contents, an assistant's calls as
``function_call`` contents (arguments kept as the JSON string), a tool message as one
``function_result`` content. A message's ``name`` travels as ``author_name``. Content given as a
list of text parts becomes one text content per part, and the message records that shape in its
``additional_properties`` (which Agent Framework keeps to itself and never sends), so that a list
of one part reads back as a list. A message Agent Framework writes itself (a summary) has plain
text contents and reads back as a string.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_framework import Content, Message

PARTS = "compactcheck_text_parts"
"""The additional property that says a message's text was a list of parts."""


def _texts(content: Any) -> tuple[list[Content], bool]:
    if content is None:
        return [], False
    if isinstance(content, str):
        return [Content.from_text(content)], False
    return [Content.from_text(part["text"]) for part in content], True


def to_agent_framework(messages: Sequence[dict[str, Any]]) -> list[Message]:
    """Agent Framework messages for OpenAI chat dicts (a fresh list of fresh messages)."""
    converted: list[Message] = []
    for index, message in enumerate(messages):
        role = message["role"]
        properties: dict[str, Any] = {}
        if role == "tool":
            contents = [
                Content.from_function_result(message["tool_call_id"], result=message["content"])
            ]
        elif role in ("system", "user", "assistant"):
            contents, parts = _texts(message.get("content"))
            if parts:
                properties[PARTS] = True
            for call in message.get("tool_calls") or []:
                contents.append(
                    Content.from_function_call(
                        call["id"],
                        call["function"]["name"],
                        arguments=call["function"]["arguments"],
                    )
                )
        else:
            raise ValueError(f"message {index} ({role}): unknown role")
        converted.append(
            Message(
                role,
                contents,
                author_name=message.get("name"),
                additional_properties=properties,
            )
        )
    return converted


def from_agent_framework(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for Agent Framework messages."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        role = str(message.role)
        item: dict[str, Any] = {"role": role}
        if role == "tool":
            results = [c for c in message.contents if c.type == "function_result"]
            if len(results) != 1 or len(message.contents) != 1:
                raise ValueError(f"message {index}: a tool message holds {message.contents!r}")
            item["tool_call_id"] = results[0].call_id
            item["content"] = results[0].result
        else:
            texts = [c.text or "" for c in message.contents if c.type == "text"]
            calls = [c for c in message.contents if c.type == "function_call"]
            others = [c.type for c in message.contents if c.type not in ("text", "function_call")]
            if others:
                raise ValueError(f"message {index}: contents of type {others} have no chat form")
            if message.additional_properties.get(PARTS):
                item["content"] = [{"type": "text", "text": text} for text in texts]
            elif texts or not calls:
                item["content"] = "".join(texts)
            if calls:
                item["tool_calls"] = [
                    {
                        "id": call.call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in calls
                ]
        if message.author_name is not None:
            item["name"] = message.author_name
        converted.append(item)
    return converted
