"""OpenAI chat dicts to LangChain messages and back, losslessly.

Text parts travel as LangChain text blocks. Tool call arguments travel parsed (LangChain keeps them
as a dict); where the parsed form would not print back to the very string OpenAI sent (spacing, key
order, a non-object), the string rides along in ``additional_kwargs``, and so does the difference
between an absent and an empty assistant content. Message ids are positional (``m0``, ``m1``...):
LangChain components that need ids get them, and they are dropped on the way back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

# Keys of additional_kwargs that carry what LangChain's own fields cannot hold exactly.
RAW_ARGUMENTS = "compactcheck_raw_arguments"
NO_CONTENT = "compactcheck_no_content"


def _arguments_text(arguments: object) -> str:
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _content_to_langchain(content: Any) -> str | list[str | dict[Any, Any]]:
    if isinstance(content, list):
        return [{"type": "text", "text": part["text"]} for part in content]
    return str(content)


def _content_from_langchain(content: Any, where: str) -> str | list[dict[str, str]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, str]] = []
    for block in content:
        if isinstance(block, str):
            parts.append({"type": "text", "text": block})
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append({"type": "text", "text": str(block["text"])})
        else:
            raise ValueError(f"{where}: expected text content blocks, found {block!r}")
    return parts


def _parsed_arguments(arguments: str) -> tuple[dict[str, Any], bool]:
    """LangChain's args for an OpenAI arguments string, and whether they print back exactly."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {}, False
    if not isinstance(parsed, dict):
        return {}, False
    return parsed, _arguments_text(parsed) == arguments


def to_langchain(messages: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """LangChain messages for OpenAI chat dicts, with positional ids."""
    converted: list[BaseMessage] = []
    for index, message in enumerate(messages):
        ident = f"m{index}"
        role = message["role"]
        name = message.get("name")
        if role == "system":
            converted.append(
                SystemMessage(_content_to_langchain(message["content"]), name=name, id=ident)
            )
        elif role == "user":
            converted.append(
                HumanMessage(_content_to_langchain(message["content"]), name=name, id=ident)
            )
        elif role == "tool":
            converted.append(
                ToolMessage(
                    _content_to_langchain(message["content"]),
                    tool_call_id=message["tool_call_id"],
                    id=ident,
                )
            )
        elif role == "assistant":
            extra: dict[str, Any] = {}
            content = message.get("content")
            if content is None:
                extra[NO_CONTENT] = True
            calls = []
            raw: dict[str, str] = {}
            for call in message.get("tool_calls") or []:
                arguments = call["function"]["arguments"]
                args, exact = _parsed_arguments(arguments)
                if not exact:
                    raw[call["id"]] = arguments
                calls.append({"id": call["id"], "name": call["function"]["name"], "args": args})
            if raw:
                extra[RAW_ARGUMENTS] = raw
            converted.append(
                AIMessage(
                    _content_to_langchain("" if content is None else content),
                    tool_calls=calls,
                    name=name,
                    id=ident,
                    additional_kwargs=extra,
                )
            )
        else:
            raise ValueError(f"message {index}: unknown role {role!r}")
    return converted


def from_langchain(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for LangChain messages (ids dropped)."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f"message {index} ({type(message).__name__})"
        content = _content_from_langchain(message.content, where)
        item: dict[str, Any]
        if isinstance(message, SystemMessage):
            item = {"role": "system", "content": content}
        elif isinstance(message, HumanMessage):
            item = {"role": "user", "content": content}
        elif isinstance(message, ToolMessage):
            converted.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
            )
            continue
        elif isinstance(message, AIMessage):
            extra = message.additional_kwargs
            item = {"role": "assistant"}
            if not (extra.get(NO_CONTENT) and content == ""):
                item["content"] = content
            raw = extra.get(RAW_ARGUMENTS, {})
            if message.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": call["id"],
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": raw.get(call["id"], _arguments_text(call["args"])),
                        },
                    }
                    for call in message.tool_calls
                ]
        else:
            raise ValueError(f"{where}: no OpenAI chat role for this message type")
        if message.name is not None:
            item["name"] = message.name
        converted.append(item)
    return converted
