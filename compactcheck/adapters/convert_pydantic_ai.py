"""OpenAI chat dicts to pydantic-ai model messages and back, losslessly.

Grouped as pydantic-ai groups a run: each assistant message is a ``ModelResponse`` (text part,
then one ``ToolCallPart`` per call, arguments kept as the JSON string), and each run of
consecutive system, user and tool messages is one ``ModelRequest`` with one part per message
(``SystemPromptPart``, ``UserPromptPart``, ``ToolReturnPart``). A summary that a compactor writes
as a ``CompactionPart`` reads back as a user message, since pydantic-ai sends it to the model as
user-voice text. A user prompt's parts are its own (texts, an ``ImageUrl`` with its detail in
``vendor_metadata``); a tool result given as text parts returns a list of strings; an assistant's
text parts are one ``TextPart`` each, and that they were parts, or that its content was an
explicit null, is marked in the response's ``metadata`` (which pydantic-ai never sends). What
pydantic-ai cannot hold (``UNHELD``: names, a system prompt of parts, refusals) is refused with
a ValueError rather than dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    CompactionPart,
    ImageUrl,
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

PARTS = "compactcheck_text_parts"
NULL_CONTENT = "compactcheck_null_content"
UNHELD: dict[str, str] = {
    "names": "pydantic-ai's message parts carry no name",
    "system_parts": "pydantic-ai's SystemPromptPart holds one string",
    "refusal": "pydantic-ai has no refusal part: a refusal would reach it as plain text",
}
"""The content forms pydantic-ai cannot hold, each with its reason."""


def _user_part(part: dict[str, Any], where: str) -> str | ImageUrl:
    if part["type"] == "text":
        return str(part["text"])
    if part["type"] == "image_url":
        image = part["image_url"]
        detail = image.get("detail")
        return ImageUrl(
            url=image["url"], vendor_metadata=None if detail is None else {"detail": detail}
        )
    raise ValueError(f"{where}: pydantic-ai's user prompt holds no {part['type']!r} part")


def _user_chat_part(item: Any, where: str) -> dict[str, Any]:
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, ImageUrl):
        image: dict[str, Any] = {"url": item.url}
        if item.vendor_metadata and "detail" in item.vendor_metadata:
            image["detail"] = item.vendor_metadata["detail"]
        return {"type": "image_url", "image_url": image}
    raise ValueError(f"{where}: a user prompt holds a {type(item).__name__}, no chat part")


def _texts(content: list[dict[str, Any]], where: str) -> list[str]:
    others = [part["type"] for part in content if part["type"] != "text"]
    if others:
        raise ValueError(f"{where}: pydantic-ai holds text here, found parts of type {others}")
    return [str(part["text"]) for part in content]


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
            metadata: dict[str, Any] = {}
            content = message.get("content")
            if isinstance(content, list):
                parts.extend(TextPart(content=text) for text in _texts(content, where))
                metadata[PARTS] = True
            elif content is not None:
                parts.append(TextPart(content=_plain(content, where)))
            elif "content" in message:
                metadata[NULL_CONTENT] = True
            for call in message.get("tool_calls") or []:
                tool_names[call["id"]] = call["function"]["name"]
                parts.append(
                    ToolCallPart(
                        tool_name=call["function"]["name"],
                        args=call["function"]["arguments"],
                        tool_call_id=call["id"],
                    )
                )
            converted.append(ModelResponse(parts=parts, metadata=metadata or None))
        elif role == "system":
            pending.append(SystemPromptPart(content=_plain(message["content"], where)))
        elif role == "user":
            content = message["content"]
            pending.append(
                UserPromptPart(
                    content=content
                    if isinstance(content, str)
                    else [_user_part(part, where) for part in content]
                )
            )
        elif role == "tool":
            call_id = message["tool_call_id"]
            body = message["content"]
            pending.append(
                ToolReturnPart(
                    tool_name=tool_names.get(call_id, "unknown"),
                    content=_texts(body, where) if isinstance(body, list) else _plain(body, where),
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
    metadata = message.metadata or {}
    if metadata.get(PARTS):
        item["content"] = [{"type": "text", "text": text} for text in texts]
    elif texts:
        item["content"] = "".join(texts)
    elif metadata.get(NULL_CONTENT):
        item["content"] = None
    if calls:
        item["tool_calls"] = calls
    return item


def _tool_content(part: ToolReturnPart) -> str | list[dict[str, Any]]:
    content = part.content
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(item, str) for item in content):
        return [{"type": "text", "text": item} for item in content]
    return part.model_response_str()


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
                else:
                    parts = [_user_chat_part(item, where) for item in content]
                    converted.append({"role": "user", "content": parts})
            elif isinstance(part, ToolReturnPart):
                converted.append(
                    {
                        "role": "tool",
                        "tool_call_id": part.tool_call_id,
                        "content": _tool_content(part),
                    }
                )
            elif isinstance(part, CompactionPart):
                converted.append({"role": "user", "content": part.content or ""})
            else:
                raise ValueError(f"{where}: no OpenAI chat form for {type(part).__name__}")
    return converted
