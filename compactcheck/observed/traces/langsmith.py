"""LangSmith run exports: runs as its API returns them, read into model calls.

A run (``langsmith.schemas.Run``: ``id``, ``run_type``, ``inputs``, ``outputs``, ``trace_id``,
``parent_run_id``, ``start_time``, ``extra.metadata``), one a line, a JSON list, or the runs query
API's ``{"runs": [...]}``. A chat model run (``run_type`` ``llm``) holds its messages in
``inputs.messages`` as LangChain dumps them (``dumpd``'s ``{"lc": 1, "type": "constructor", ...}``,
``messages_to_dict``'s ``{"type", "data"}``, or role dicts), its answer in
``outputs.generations[0][0].message``; the conversation is ``extra.metadata.thread_id`` (or
``session_id``, ``conversation_id``), the agent the LangGraph node (``langgraph_node``).
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.formats import CHAT
from compactcheck.observed.traces.exported import field_of, langchain_message, nanos
from compactcheck.observed.traces.records import Call, Record, Skip, Span, TraceError


def record(number: int, run: Any) -> Record | None:
    if not isinstance(run, dict):
        raise TraceError(f"record {number} is not a LangSmith run (an object)")
    trace_id = str(run.get("trace_id") or run.get("id") or "")
    span_id = str(run.get("id") or "")
    metadata = field_of(field_of(run, "extra"), "metadata")
    if run.get("run_type") != "llm":
        name = str(run.get("name", ""))
        return Span(
            trace_id,
            span_id,
            str(run.get("parent_run_id") or ""),
            name,
            nanos(run.get("start_time")),
            nanos(run.get("end_time")),
            {"agent.name": str(metadata.get("langgraph_node", ""))}
            if metadata.get("langgraph_node")
            else {},
        )
    inputs = field_of(run, "inputs")
    listed = inputs.get("messages")
    if isinstance(listed, list) and listed and isinstance(listed[0], list):
        listed = listed[0]
    if not isinstance(listed, list) or not listed:
        return Skip(
            trace_id,
            span_id,
            "a LangSmith llm run without input messages (a "
            "completion prompt, or inputs hidden: unset LANGSMITH_HIDE_INPUTS)",
        )
    try:
        history = [langchain_message(item) for item in listed]
    except ValueError as error:
        return Skip(trace_id, span_id, f"a LangSmith llm run: {error}")
    outputs = field_of(run, "outputs")
    output: list[Any] | None = None
    generations = outputs.get("generations")
    try:
        if isinstance(generations, list) and generations and generations[0]:
            first = generations[0][0] if isinstance(generations[0], list) else generations[0]
            if isinstance(first, dict) and isinstance(first.get("message"), dict):
                output = [langchain_message(first["message"])]
    except ValueError:
        output = None
    conversation = next(
        (
            str(metadata[k])
            for k in ("thread_id", "session_id", "conversation_id")
            if metadata.get(k)
        ),
        "",
    )
    return Call(
        trace_id=trace_id,
        span_id=span_id,
        start_ns=nanos(run.get("start_time")),
        format=CHAT,
        history=tuple(history),
        output=tuple(output) if output is not None else None,
        conversation=conversation,
        agent=str(metadata.get("langgraph_node", "")),
        parent_id=str(run.get("parent_run_id") or ""),
        source="langsmith run",
    )


__all__ = ["record"]
