"""What a projection reads off a chat history: its texts, its calls, earlier summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from compactcheck.invariants import AssistantMessage, ChatMessage, UserMessage, content_text

# The first words of an earlier compaction's summary in every projection (messages_view).
SUMMARY_PREFIX: Final = "Summary of the conversation so far."


def is_summary(message: ChatMessage) -> bool:
    """Whether a message is an earlier compaction's summary, as every projection writes it."""
    return isinstance(message, UserMessage) and content_text(message.content).startswith(
        SUMMARY_PREFIX
    )


def texts(message: ChatMessage) -> list[str]:
    """A message's texts: one per part of a multi-part content, else its one text (if any)."""
    if isinstance(message.content, tuple):
        return [part.text for part in message.content]
    return [message.content] if message.content else []


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
