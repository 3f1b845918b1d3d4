"""OpenAI chat dicts to AutoGen (autogen-core) LLM messages and back, losslessly.

A run of consecutive tool messages becomes one ``FunctionExecutionResultMessage`` (AutoGen's own
shape for parallel results) and splits back in order. An assistant's text next to its calls
travels as ``thought``. A message's ``name`` travels in ``source`` as ``"role:name"``; a plain
role means no name, so AutoGen's own sources ("System" on a placeholder) read back as no name.
AutoGen holds only strings in system, assistant and tool contents: text parts there are refused
with a ValueError rather than joined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core import FunctionCall
from autogen_core.models import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)


def _source(role: str, name: str | None) -> str:
    return role if name is None else f"{role}:{name}"


def _name(role: str, source: str) -> str | None:
    prefix = f"{role}:"
    return source[len(prefix) :] if source.startswith(prefix) else None


def _plain(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    raise ValueError(f"{where}: AutoGen holds a string here, found text parts {content!r}")


def to_autogen(messages: Sequence[dict[str, Any]]) -> list[LLMMessage]:
    """AutoGen messages for OpenAI chat dicts."""
    converted: list[LLMMessage] = []
    tool_names: dict[str, str] = {}
    for index, message in enumerate(messages):
        where = f"message {index} ({message['role']})"
        role = message["role"]
        if role == "system":
            if message.get("name") is not None:
                raise ValueError(f"{where}: AutoGen's SystemMessage has no name")
            converted.append(SystemMessage(content=_plain(message["content"], where)))
        elif role == "user":
            content = message["content"]
            parts: str | list[Any] = (
                content if isinstance(content, str) else [part["text"] for part in content]
            )
            converted.append(
                UserMessage(content=parts, source=_source("user", message.get("name")))
            )
        elif role == "assistant":
            source = _source("assistant", message.get("name"))
            calls = message.get("tool_calls")
            content = message.get("content")
            if calls:
                for call in calls:
                    tool_names[call["id"]] = call["function"]["name"]
                converted.append(
                    AssistantMessage(
                        content=[
                            FunctionCall(
                                id=call["id"],
                                name=call["function"]["name"],
                                arguments=call["function"]["arguments"],
                            )
                            for call in calls
                        ],
                        thought=None if content is None else _plain(content, where),
                        source=source,
                    )
                )
            else:
                converted.append(AssistantMessage(content=_plain(content, where), source=source))
        elif role == "tool":
            result = FunctionExecutionResult(
                content=_plain(message["content"], where),
                name=tool_names.get(message["tool_call_id"], "unknown"),
                call_id=message["tool_call_id"],
            )
            previous = converted[-1] if converted else None
            if (
                isinstance(previous, FunctionExecutionResultMessage)
                and messages[index - 1]["role"] == "tool"
            ):
                previous.content.append(result)
            else:
                converted.append(FunctionExecutionResultMessage(content=[result]))
        else:
            raise ValueError(f"{where}: unknown role")
    return converted


def from_autogen(messages: Sequence[LLMMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for AutoGen messages."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        item: dict[str, Any]
        if isinstance(message, SystemMessage):
            converted.append({"role": "system", "content": message.content})
            continue
        if isinstance(message, UserMessage):
            content = message.content
            if isinstance(content, str):
                item = {"role": "user", "content": content}
            else:
                texts = [part for part in content if isinstance(part, str)]
                if len(texts) != len(content):
                    raise ValueError(f"message {index}: a user message holds an image")
                item = {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}
            name = _name("user", message.source)
        elif isinstance(message, AssistantMessage):
            item = {"role": "assistant"}
            if isinstance(message.content, str):
                item["content"] = message.content
            else:
                if message.thought is not None:
                    item["content"] = message.thought
                item["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in message.content
                ]
            name = _name("assistant", message.source)
        else:
            for result in message.content:
                converted.append(
                    {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                )
            continue
        if name is not None:
            item["name"] = name
        converted.append(item)
    return converted
