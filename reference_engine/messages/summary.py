"""The summary message that stands in for a span of messages.

It is written so that nothing a checker or a model needs is lost: what users said is kept in
full (their words carry goals and constraint updates), each tool call is listed with its name,
arguments and id, and every other message by the first line of each of its text parts.
Identifiers such as file paths and step ids therefore survive verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    ToolMessage,
    UserMessage,
    content_text,
)

SUMMARY_HEADER = "Summary of {count} earlier messages, replaced by this one:"


def first_line(text: str) -> str:
    """The first line of a text, or the text itself when it has one line."""
    # A slice, not a split: a split would copy the rest of a long tool output too.
    end = text.find("\n")
    return text if end < 0 else text[:end]


def summary_lines(message: ChatMessage) -> list[str]:
    """The lines one message contributes to a summary."""
    text = content_text(message.content)
    if isinstance(message, UserMessage):
        return [f"- user said: {text}"]
    if isinstance(message, ToolMessage):
        return [f"- tool result {message.tool_call_id}: {first_line(text)}"]
    # The first line of each text part: a provider format's turn that joins several texts (a
    # Gemini model turn, an Anthropic turn of several text blocks) reads as one part each.
    parts = message.content if isinstance(message.content, tuple) else (text,)
    shown = [first_line(part if isinstance(part, str) else part.text) for part in parts]
    lines = [f"- {message.role}: {line}" for line in shown if line]
    if isinstance(message, AssistantMessage) and message.tool_calls:
        lines += [
            f"- assistant called {call.function.name} {call.function.arguments} ({call.id})"
            for call in message.tool_calls
        ]
    return lines


def summary_text(lines: Sequence[str], count: int) -> str:
    """The text of a summary of ``count`` messages from their lines."""
    return "\n".join([SUMMARY_HEADER.format(count=count), *lines])


def summarise(span: Sequence[ChatMessage]) -> UserMessage:
    """One user message that states what happened in a span."""
    lines = [line for message in span for line in summary_lines(message)]
    return UserMessage(content=summary_text(lines, len(span)))
