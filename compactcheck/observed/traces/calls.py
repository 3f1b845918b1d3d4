"""A span, with the log events tied to it, read as a model call by the convention it follows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compactcheck.invariants.formats import CHAT, HISTORY_FIELD, Format
from compactcheck.observed.traces import genai, openinference
from compactcheck.observed.traces.records import Call, Skip, Span, SpanEvent

# The request fields beside the history that the laws read, per format.
HEAD_FIELDS: Mapping[Format, tuple[str, ...]] = {
    "openai-chat": (),
    "anthropic": ("system",),
    "openai-responses": ("instructions",),
    "gemini": ("systemInstruction", "system_instruction"),
}

_CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id", "thread_id", "langgraph.thread_id")
_AGENT_KEYS = ("gen_ai.agent.id", "gen_ai.agent.name", "agent.name")


def is_model_call(span: Span) -> bool:
    """Whether a span is a model call of a convention this package reads."""
    return openinference.is_model_call(span.attributes) or genai.is_model_call(span.attributes)


def needs_logs(span: Span) -> bool:
    """Whether a model call's messages may be in log events still to come (v1.30 and EVENT_ONLY)."""
    found = span.attributes
    return (
        not openinference.is_model_call(found)
        and "gen_ai.input.messages" not in found
        and not any(key.startswith("gen_ai.prompt.") for key in found)
        and not any(e.name == "gen_ai.content.prompt" for e in span.events)
    )


def conversation_of(attributes: Mapping[str, Any]) -> str:
    """The conversation a span says it belongs to, or ''."""
    for key in _CONVERSATION_KEYS:
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def agent_of(attributes: Mapping[str, Any]) -> str:
    """The agent a span names (its own attribute, or OpenInference's LangGraph node), or ''."""
    for key in _AGENT_KEYS:
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    if attributes.get("gen_ai.operation.name") == "invoke_agent":
        return "invoke_agent"
    return openinference.agent_hint(attributes)


def split(format: Format, request: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """A request's history list and the other fields the laws read."""
    history = request.get(HISTORY_FIELD[format])
    head = {key: request[key] for key in HEAD_FIELDS[format] if key in request}
    return (list(history) if isinstance(history, list) else []), head


def read_span(span: Span, logs: Sequence[SpanEvent] = ()) -> Call | Skip:
    """The model call a span records, or why it cannot be judged."""
    found = span.attributes
    try:
        if openinference.is_model_call(found):
            format, request, output, source = openinference.read_call(found)
        else:
            events = sorted((*span.events, *logs), key=lambda e: e.time_ns)
            messages, answer, source = genai.read_call(found, events)
            format, request, output = CHAT, {"messages": messages}, answer
    except genai.ContentError as error:
        return Skip(span.trace_id, span.span_id, str(error))
    history, head = split(format, request)
    if not history:
        return Skip(span.trace_id, span.span_id, "a model call with an empty history")
    return Call(
        trace_id=span.trace_id,
        span_id=span.span_id,
        start_ns=span.start_ns,
        format=format,
        history=tuple(history),
        head=head,
        output=tuple(output) if output is not None else None,
        conversation=conversation_of(found),
        agent=agent_of(found),
        parent_id=span.parent_id,
        source=source,
    )


__all__ = [
    "HEAD_FIELDS",
    "agent_of",
    "conversation_of",
    "is_model_call",
    "needs_logs",
    "read_span",
    "split",
]
