"""OpenAI chat dicts to Microsoft Agent Framework (agent-framework-core) messages and back,
losslessly.

Each chat dict is one ``Message``: its text as text contents, an assistant's calls as
``function_call`` contents (arguments kept as the JSON string), a tool message as one
``function_result`` content. A message's ``name`` travels as ``author_name``. Content given as a
list of text parts becomes one text content per part, and the message records that shape in its
``additional_properties`` (which Agent Framework keeps to itself and never sends), so that a list
of one part reads back as a list. A message Agent Framework writes itself (a summary) has plain
text contents and reads back as a string. An image part is a ``uri`` content of an image media
type (its detail, when given, in the content's ``additional_properties``); a tool result given
as parts is a result of text contents; a null assistant content is marked as the parts are.
Agent Framework has no refusal content (``UNHELD``): a refusal part is refused with a ValueError.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from typing import Any

from agent_framework import Content, Message

PARTS = "compactcheck_text_parts"
"""The additional property that says a message's text was a list of parts."""
NULL_CONTENT = "compactcheck_null_content"
"""The additional property that says an assistant's content was an explicit null."""
DETAIL = "detail"
# An image at a URL whose media type its name does not tell: an image, of no known type.
IMAGE_TYPE = "image/*"
UNHELD: dict[str, str] = {
    "refusal": "Agent Framework has no refusal content: a refusal would reach it as plain text",
}
"""The content forms Agent Framework cannot hold, each with its reason."""


def _content(part: dict[str, Any], where: str) -> Content:
    if part["type"] == "text":
        return Content.from_text(part["text"])
    if part["type"] == "image_url":
        image = part["image_url"]
        detail = image.get("detail")
        return Content.from_uri(
            image["url"],
            media_type=mimetypes.guess_type(image["url"])[0] or IMAGE_TYPE,
            additional_properties={} if detail is None else {DETAIL: detail},
        )
    raise ValueError(f"{where}: Agent Framework has no content for a {part['type']!r} part")


def _part(content: Content, where: str) -> dict[str, Any]:
    if content.type == "text":
        return {"type": "text", "text": content.text or ""}
    if content.type == "uri" and content.has_top_level_media_type("image"):
        image: dict[str, Any] = {"url": content.uri}
        if DETAIL in content.additional_properties:
            image[DETAIL] = content.additional_properties[DETAIL]
        return {"type": "image_url", "image_url": image}
    raise ValueError(f"{where}: a {content.type} content has no chat part")


def _texts(content: Any, where: str) -> tuple[list[Content], bool]:
    if content is None:
        return [], False
    if isinstance(content, str):
        return [Content.from_text(content)], False
    return [_content(part, where) for part in content], True


def to_agent_framework(messages: Sequence[dict[str, Any]]) -> list[Message]:
    """Agent Framework messages for OpenAI chat dicts (a fresh list of fresh messages)."""
    converted: list[Message] = []
    for index, message in enumerate(messages):
        role = message["role"]
        where = f"message {index} ({role})"
        properties: dict[str, Any] = {}
        if role == "tool":
            body = message["content"]
            result: Any = body
            if isinstance(body, list):
                result = [_content(part, where) for part in body]
                properties[PARTS] = True
            contents = [Content.from_function_result(message["tool_call_id"], result=result)]
        elif role in ("system", "user", "assistant"):
            contents, parts = _texts(message.get("content"), where)
            if parts:
                properties[PARTS] = True
            if "content" in message and message["content"] is None:
                properties[NULL_CONTENT] = True
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
            if message.additional_properties.get(PARTS):
                items = results[0].items or []
                item["content"] = [_part(content, f"message {index}") for content in items]
            else:
                item["content"] = results[0].result
        else:
            calls = [c for c in message.contents if c.type == "function_call"]
            held = [c for c in message.contents if c.type != "function_call"]
            texts = [c.text or "" for c in held if c.type == "text"]
            if message.additional_properties.get(PARTS):
                item["content"] = [_part(content, f"message {index}") for content in held]
            elif len(texts) != len(held):
                others = [c.type for c in held if c.type != "text"]
                raise ValueError(f"message {index}: contents of type {others} have no chat form")
            elif message.additional_properties.get(NULL_CONTENT) and not texts:
                item["content"] = None
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
