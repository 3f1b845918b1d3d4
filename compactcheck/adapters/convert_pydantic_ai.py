"""OpenAI chat dicts to pydantic-ai model messages and back, losslessly.

Grouped as pydantic-ai groups a run: each assistant message is a ``ModelResponse`` (text part,
then one ``ToolCallPart`` per call, arguments kept as the JSON string), and each run of
consecutive system, user and tool messages is one ``ModelRequest`` with one part per message
(``SystemPromptPart``, ``UserPromptPart``, ``ToolReturnPart``). A summary that a compactor writes
as a ``CompactionPart`` reads back as a user message, since pydantic-ai sends it to the model as
user-voice text. Names, and text parts where pydantic-ai holds a single string, are refused with
a ValueError rather than dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)


def _plain(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    raise ValueError(f"{where}: pydantic-ai holds a string here, found text parts {content!r}")


def to_pydantic_ai(messages: Sequence[dict[str, Any]]) -> list[ModelMessage]:
    """pydantic-ai messages for OpenAI chat dicts."""
    converted: list[ModelMessage] = []
    pending: list[ModelRequestPart] = []
    tool_names: dict[str, str] = {}

    def flush() -> None:
        if pending:
            converted.append(ModelRequest(parts=list(pending)))
            pending.clear()

    for index, message in enumerate(messages):
        role = message["role"]
        where = f"message {index} ({role})"
        if message.get("name") is not None:
            raise ValueError(f"{where}: pydantic-ai parts carry no name")
        if role == "assistant":
            flush()
            parts: list[ModelResponsePart] = []
            if message.get("content") is not None:
                parts.append(TextPart(content=_plain(message["content"], where)))
            for call in message.get("tool_calls") or []:
                tool_names[call["id"]] = call["function"]["name"]
                parts.append(
                    ToolCallPart(
                        tool_name=call["function"]["name"],
                        args=call["function"]["arguments"],
                        tool_call_id=call["id"],
                    )
                )
            converted.append(ModelResponse(parts=parts))
        elif role == "system":
            pending.append(SystemPromptPart(content=_plain(message["content"], where)))
        elif role == "user":
            content = message["content"]
            pending.append(
                UserPromptPart(
                    content=content
                    if isinstance(content, str)
                    else [part["text"] for part in content]
                )
            )
        elif role == "tool":
            call_id = message["tool_call_id"]
            pending.append(
                ToolReturnPart(
                    tool_name=tool_names.get(call_id, "unknown"),
                    content=_plain(message["content"], where),
                    tool_call_id=call_id,
                )
            )
        else:
            raise ValueError(f"{where}: unknown role")
    flush()
    return converted


def _arguments(part: ToolCallPart) -> str:
    # The string as the call carried it; args_as_json_str() would rewrite a non-JSON one.
    return part.args if isinstance(part.args, str) else part.args_as_json_str()


def _response(message: ModelResponse, where: str) -> dict[str, Any]:
    item: dict[str, Any] = {"role": "assistant"}
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            texts.append(part.content)
        elif isinstance(part, ToolCallPart):
            calls.append(
                {
                    "id": part.tool_call_id,
                    "type": "function",
                    "function": {"name": part.tool_name, "arguments": _arguments(part)},
                }
            )
        else:
            raise ValueError(f"{where}: no OpenAI chat form for {type(part).__name__}")
    if texts:
        item["content"] = "".join(texts)
    if calls:
        item["tool_calls"] = calls
    return item


def from_pydantic_ai(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for pydantic-ai messages."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f"message {index} ({type(message).__name__})"
        if isinstance(message, ModelResponse):
            converted.append(_response(message, where))
            continue
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                converted.append({"role": "system", "content": part.content})
            elif isinstance(part, UserPromptPart):
                content = part.content
                if isinstance(content, str):
                    converted.append({"role": "user", "content": content})
                elif all(isinstance(item, str) for item in content):
                    texts = [{"type": "text", "text": item} for item in content]
                    converted.append({"role": "user", "content": texts})
                else:
                    raise ValueError(f"{where}: a user prompt holds more than text")
            elif isinstance(part, ToolReturnPart):
                converted.append(
                    {
                        "role": "tool",
                        "tool_call_id": part.tool_call_id,
                        "content": part.content
                        if isinstance(part.content, str)
                        else part.model_response_str(),
                    }
                )
            elif isinstance(part, CompactionPart):
                converted.append({"role": "user", "content": part.content or ""})
            else:
                raise ValueError(f"{where}: no OpenAI chat form for {type(part).__name__}")
    return converted
