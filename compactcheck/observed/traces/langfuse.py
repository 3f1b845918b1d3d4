"""Langfuse observation exports: observations as its public API returns them, read into calls.

``GET /api/public/v2/observations`` (and v1's ``/api/public/observations``) answers
``{"data": [...], "meta": {...}}``; an export is that page, the list, or one observation a line.
Each has ``id``, ``traceId``, ``type``, ``parentObservationId``, ``startTime``, ``sessionId``
(the conversation), ``input``, ``output`` and ``metadata``. A ``GENERATION``'s ``input`` is the
messages (or a request holding them) in the provider's format; as Langfuse's LangChain
integration records them, they are role dicts with LangChain's own tool calls
(``{"name", "args", "id"}``), and each tool definition is appended as a ``{"role": "tool"}``
entry with no ``tool_call_id``: those are the request's tools, not messages, and are set aside.
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.formats import CHAT, Format
from compactcheck.observed.traces.calls import split
from compactcheck.observed.traces.exported import (
    chat_message,
    field_of,
    langchain_message,
    nanos,
    request_of,
)
from compactcheck.observed.traces.records import Call, Record, Skip, Span, TraceError


def _is_tool_definition(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("role") == "tool"
        and "tool_call_id" not in item
        and isinstance(item.get("content"), dict)
    )


def _input(value: Any) -> tuple[Format, dict[str, Any]] | None:
    """A generation's input as a request; LangChain's role dicts read as chat messages."""
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        messages = [m for m in value if not _is_tool_definition(m)]
        try:
            return CHAT, {"messages": [langchain_message(m) for m in messages]}
        except ValueError:
            return request_of(messages)
    return request_of(value)


def _answer(output: Any) -> Any:
    if isinstance(output, dict) and "role" in output and "type" not in output:
        try:
            return langchain_message(output)
        except ValueError:
            return chat_message(output)
    return output


def record(number: int, item: Any) -> Record | None:
    if not isinstance(item, dict):
        raise TraceError(f"record {number} is not a Langfuse observation (an object)")
    trace_id = str(item.get("traceId") or "")
    span_id = str(item.get("id") or "")
    parent = str(item.get("parentObservationId") or "")
    start = nanos(item.get("startTime"))
    if item.get("type") != "GENERATION":
        name = str(item.get("name", ""))
        agent = {"agent.name": name} if item.get("type") == "AGENT" else {}
        return Span(trace_id, span_id, parent, name, start, nanos(item.get("endTime")), agent)
    found = _input(item.get("input"))
    if found is None:
        return Skip(
            trace_id,
            span_id,
            "a Langfuse generation whose input is not a message list "
            "(input masked, or a plain prompt)",
        )
    format, request = found
    history, head = split(format, request)
    output = item.get("output")
    if isinstance(output, dict) and "choices" in output:
        output = (output.get("choices") or [{}])[0].get("message")
    output = _answer(output) if format == CHAT else output
    answer = [output] if isinstance(output, dict) and output.get("role") else None
    metadata = field_of(item, "metadata")
    return Call(
        trace_id=trace_id,
        span_id=span_id,
        start_ns=start,
        format=format,
        history=tuple(history),
        head=head,
        output=tuple(answer) if answer else None,
        conversation=str(item.get("sessionId") or metadata.get("session_id") or ""),
        agent=str(metadata.get("langgraph_node") or ""),
        parent_id=parent,
        source="langfuse generation",
    )


__all__ = ["record"]
