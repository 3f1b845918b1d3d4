"""What a projection reads off a chat history: its texts, its calls, earlier summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from compactcheck.invariants import AssistantMessage, ChatMessage, UserMessage, content_text
from compactcheck.invariants.messages import ImagePart, Part, RefusalPart, TextPart, part_text

# The first words of an earlier compaction's summary in every projection (messages_view).
SUMMARY_PREFIX: Final = "Summary of the conversation so far."


def is_summary(message: ChatMessage) -> bool:
    """Whether a message is an earlier compaction's summary, as every projection writes it."""
    return isinstance(message, UserMessage) and content_text(message.content).startswith(
        SUMMARY_PREFIX
    )


def texts(message: ChatMessage) -> list[str]:
    """A message's texts: one per worded part of a multi-part content, else its one text."""
    if isinstance(message.content, tuple):
        return [text for part in message.content if (text := part_text(part)) is not None]
    return [message.content] if message.content else []


def parts(message: ChatMessage) -> tuple[Part, ...]:
    """A message's content as parts: a string is one text part (an empty one none)."""
    if isinstance(message.content, tuple):
        return message.content
    return (TextPart(text=message.content),) if message.content else ()


def is_parts(message: ChatMessage) -> bool:
    """Whether a message's content is a list of parts rather than a plain string."""
    return isinstance(message.content, tuple)


def image_url(part: Part) -> str | None:
    """The URL of an image part; None for any other part."""
    return part.image_url.url if isinstance(part, ImagePart) else None


def is_refusal(part: Part) -> bool:
    """Whether a part is an assistant's refusal."""
    return isinstance(part, RefusalPart)


def run_makes_calls(messages: Sequence[ChatMessage], start: int) -> bool:
    """Whether the run of assistant messages starting at ``start`` makes a tool call."""
    for message in messages[start:]:
        if not isinstance(message, AssistantMessage):
            return False
        if message.tool_calls:
            return True
    return False


def call_input(arguments: str) -> dict[str, Any]:
    """A call's arguments as a JSON object (text that is not one is wrapped in one)."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"arguments": value}


def call_names(messages: Sequence[ChatMessage]) -> dict[str, str]:
    """The name of the tool each call id calls."""
    return {
        call.id: call.function.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or ()
    }
