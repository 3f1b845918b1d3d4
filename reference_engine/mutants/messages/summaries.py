"""Message mutants with a careless summary: one that erodes, demotes, restates or invents."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.reference_engine.messages import compact_messages, summarise, summary_lines
from compactcheck.reference_engine.messages.summary import first_line, summary_text
from compactcheck.reference_engine.mutants.messages.builders import (
    MUTANT_MAX_MESSAGES,
    Messages,
    reference,
    summary_of,
)


def _headline_summary(span: Sequence[ChatMessage]) -> ChatMessage:
    """A summary that keeps one line per message, users' words included."""
    lines = [
        f"- {message.role}: {first_line(content_text(message.content))}"
        if isinstance(message, UserMessage)
        else line
        for message in span
        for line in summary_lines(message)
    ]
    return UserMessage(content=summary_text(lines, len(span)))


def resummarise_goal(messages: Messages) -> Messages:
    """Treats the first user message (often an earlier summary) as history like any other, and
    re-summarises it to its first line: the task erodes a little on every compaction."""
    head = 0
    while head < len(messages) and isinstance(messages[head], SystemMessage):
        head += 1
    return compact_messages(messages, MUTANT_MAX_MESSAGES, head=head, summariser=_headline_summary)


def demote_system(messages: Messages) -> Messages:
    """Folds the system prompt into the summary, as summarising middlewares that summarise
    "everything older than the tail" do."""
    compacted = reference(messages)
    summary = summary_of(messages, compacted)
    if summary is None:
        return compacted
    prompts = [content_text(m.content) for m in compacted if isinstance(m, SystemMessage)]
    folded = UserMessage(
        content="\n".join([content_text(summary.content), *(f"- system: {p}" for p in prompts)])
    )
    return tuple(
        folded if m is summary else m for m in compacted if not isinstance(m, SystemMessage)
    )


def restate_constraints(messages: Messages) -> Messages:
    """The summary ends by restating every constraint line it can find in the system prompt and
    the user turns, unaware that an update replaced one of them."""
    stated = [
        line.split("] ", 1)[1].split(" (replaces ", 1)[0]
        for m in messages
        if isinstance(m, SystemMessage | UserMessage)
        for line in content_text(m.content).splitlines()
        if line.startswith("- [") and "] " in line
    ]

    def summariser(span: Sequence[ChatMessage]) -> ChatMessage:
        summary = content_text(summarise(span).content)
        restated = (f"Constraint in force: {text}" for text in dict.fromkeys(stated))
        return UserMessage(content="\n".join([summary, *restated]))

    return compact_messages(messages, MUTANT_MAX_MESSAGES, summariser=summariser)


def invent_constraint(messages: Messages) -> Messages:
    """The summary ends with a rule nobody gave, as a model that fills in "constraints" does."""
    compacted = reference(messages)
    summary = summary_of(messages, compacted)
    if summary is None:
        return compacted
    text = f"{content_text(summary.content)}\nConstraint: Store sessions in Redis 7."
    return tuple(
        UserMessage(content=text) if message is summary else message for message in compacted
    )


def summary_first(messages: Messages) -> Messages:
    """Puts the summary at the very top, above the system prompt it should follow."""
    compacted = reference(messages)
    summary = summary_of(messages, compacted)
    if summary is None:
        return compacted
    return (summary, *(m for m in compacted if m is not summary))


def _terse_lines(message: ChatMessage) -> list[str]:
    """Summary lines that name each call without its arguments and each result by its status."""
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return [f"- assistant called {call.function.name}" for call in message.tool_calls]
    if isinstance(message, ToolMessage):
        failed = content_text(message.content).startswith("error")
        return [f"- tool result {message.tool_call_id}: {'failed' if failed else 'ok'}"]
    return summary_lines(message)


def summary_without_arguments(messages: Messages) -> Messages:
    """A terse summary: "called edit_file: ok" says that a file changed, not which one."""

    def summariser(span: Sequence[ChatMessage]) -> ChatMessage:
        lines = [line for message in span for line in _terse_lines(message)]
        return UserMessage(content=summary_text(lines, len(span)))

    return compact_messages(messages, MUTANT_MAX_MESSAGES, summariser=summariser)


def drop_user_turns(messages: Messages) -> Messages:
    """Writes the summary as a system message and drops user turns as "already summarised"."""
    compacted = reference(messages)
    summary = summary_of(messages, compacted)
    if summary is None:
        return compacted
    return tuple(
        SystemMessage(content=m.content) if m is summary else m
        for m in compacted
        if m is summary or not isinstance(m, UserMessage)
    )
