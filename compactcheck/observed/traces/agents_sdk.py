"""OpenAI Agents SDK trace exports: spans as its exporter sends them, read into model calls.

Each item as ``export()`` makes it: ``{"object": "trace", "id", "group_id", ...}`` and
``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at", "span_data": {...}}``,
one a line or in the ``{"data": [...]}`` batches the SDK's exporter posts. A ``generation``
span (the chat completions model) carries its model input and output (when the run's
``trace_include_sensitive_data`` is on, the default); a ``response`` span (the Responses model)
exports only the response id, so its calls are skipped, saying so. A trace's ``group_id``
names the conversation; an ``agent`` span names the agent of the calls under it.
"""

from __future__ import annotations

from typing import Any

from compactcheck.observed.traces.calls import split
from compactcheck.observed.traces.exported import chat_message, field_of, nanos, request_of
from compactcheck.observed.traces.records import Call, Record, Skip, Span, TraceError


def record(number: int, item: Any, groups: dict[str, str]) -> Record | None:
    if not isinstance(item, dict):
        raise TraceError(f"record {number} is not an Agents SDK span (an object)")
    if item.get("object") == "trace":
        if item.get("group_id"):
            groups[str(item.get("id"))] = str(item["group_id"])
        return None
    if item.get("object") != "trace.span":
        return None
    data = field_of(item, "span_data")
    trace_id, span_id = str(item.get("trace_id", "")), str(item.get("id", ""))
    parent = str(item.get("parent_id") or "")
    kind = data.get("type")
    if kind == "agent":
        return Span(
            trace_id,
            span_id,
            parent,
            str(data.get("name", "")),
            nanos(item.get("started_at")),
            nanos(item.get("ended_at")),
            {"gen_ai.agent.name": str(data.get("name", ""))},
        )
    if kind not in ("generation", "response"):
        return Span(trace_id, span_id, parent, str(kind), nanos(item.get("started_at")), 0, {})
    found = request_of(data.get("input"))
    if found is None:
        return Skip(
            trace_id,
            span_id,
            f"an Agents SDK {kind} span without its model input (a "
            "response span's export carries only the response id: record with a chat "
            "completions model, or a processor that exports span_data.input)",
        )
    format, request = found
    history, head = split(format, request)
    output = data.get("output")
    answer = [chat_message(m) for m in output] if isinstance(output, list) else None
    return Call(
        trace_id=trace_id,
        span_id=span_id,
        start_ns=nanos(item.get("started_at")),
        format=format,
        history=tuple(history),
        head=head,
        output=tuple(answer) if answer is not None else None,
        conversation=groups.get(trace_id, ""),
        parent_id=parent,
        source=f"openai-agents {kind} span",
    )


__all__ = ["record"]
