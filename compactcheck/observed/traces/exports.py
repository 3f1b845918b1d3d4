"""The JSON exports of tracing services, read into model calls.

- LangSmith: runs as its API returns and exports them (``run_type``, ``inputs``,
  ``outputs``, ``trace_id``, ``parent_run_id``, ``extra.metadata``), a JSON list or JSON Lines;
  a chat model run's ``inputs.messages`` are LangChain messages (``dumpd``'s
  ``{"lc": 1, "type": "constructor", ...}``, ``messages_to_dict``'s ``{"type", "data"}``, or
  role dicts), its answer ``outputs.generations[0][0].message``;
- Langfuse: observations as its public API returns them (``GET /api/public/observations``:
  ``{"data": [...]}``, or the list, or JSON Lines), a ``GENERATION``'s ``input`` the messages
  (or a request holding them) and its ``output`` the assistant message;
- the OpenAI Agents SDK: spans as its exporter sends them (``span.export()``: ``"object":
  "trace.span"``, one a line, or ``{"data": [...]}`` batches), a ``generation`` span carrying
  its model input and output (chat completions models); ``trace`` records name the
  conversation (``group_id``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from compactcheck.base.errors import one_line
from compactcheck.invariants.formats import CHAT, HISTORY_FIELD, Format, detect_format
from compactcheck.observed.traces.calls import split
from compactcheck.observed.traces.records import Call, Record, Skip, Span, TraceError

_LANGCHAIN_ROLES = {
    "human": "user",
    "HumanMessage": "user",
    "user": "user",
    "ai": "assistant",
    "AIMessage": "assistant",
    "assistant": "assistant",
    "AIMessageChunk": "assistant",
    "system": "system",
    "SystemMessage": "system",
    "tool": "tool",
    "ToolMessage": "tool",
}


def field_of(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The object under ``key``, or an empty one when it is absent or not an object."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def nanos(value: Any) -> int:
    """An ISO 8601 time (or epoch seconds) as nanoseconds since the epoch; 0 when absent."""
    if isinstance(value, (int, float)):
        return int(value * 1e9) if value < 1e12 else int(value)
    if not isinstance(value, str) or not value:
        return 0
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        from datetime import UTC

        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000


def langchain_message(item: Any) -> dict[str, Any]:
    """One LangChain message (any of its dumps) as a chat completions message."""
    if not isinstance(item, dict):
        raise ValueError("a message that is not an object")
    if item.get("lc") == 1:
        kind = str((item.get("id") or ["?"])[-1])
        fields: Mapping[str, Any] = item.get("kwargs") or {}
    elif isinstance(item.get("data"), dict):
        kind, fields = str(item.get("type")), item["data"]
    else:
        kind, fields = str(item.get("type") or item.get("role")), item
    role = _LANGCHAIN_ROLES.get(kind)
    if role is None:
        raise ValueError(f"LangChain message kind {kind!r} is not one compactcheck reads")
    content = fields.get("content", "")
    if isinstance(content, list):
        content = "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p)
            for p in content
            if not isinstance(p, dict) or p.get("type", "text") == "text"
        )
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        calls = fields.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "id": str(call.get("id", "")),
                    "type": "function",
                    "function": {
                        "name": str(call.get("name", "")),
                        "arguments": json.dumps(call.get("args", {}), separators=(",", ":")),
                    },
                }
                if "function" not in call
                else call
                for call in calls
            ]
            message["content"] = content or None
    if role == "tool":
        message["tool_call_id"] = str(fields.get("tool_call_id", ""))
    return message


def _langsmith(number: int, run: Any) -> Record | None:
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


def _request_of(value: Any) -> tuple[Format, dict[str, Any]] | None:
    """A recorded input as a request: a message list (chat or a provider's), or a request."""
    if isinstance(value, list):
        found = detect_format(value)
        if found is None:
            return None
        return found, {HISTORY_FIELD[found]: value}
    if isinstance(value, dict):
        found = detect_format(value)
        if found is not None and isinstance(value.get(HISTORY_FIELD[found]), list):
            return found, value
    return None


def _langfuse(number: int, item: Any) -> Record | None:
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
    found = _request_of(item.get("input"))
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


def _agents(number: int, item: Any, groups: dict[str, str]) -> Record | None:
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
    found = _request_of(data.get("input"))
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
    answer = list(output) if isinstance(output, list) else None
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


def read(path: Path, kind: str) -> Iterator[Record]:
    """Every record of an export file of ``kind`` (langsmith, langfuse or openai-agents)."""
    groups: dict[str, str] = {}
    for number, value in json_items(path):
        listed = value.get("data") if isinstance(value, dict) else None
        batch: list[Any] = listed if isinstance(listed, list) else [value]
        for item in batch:
            if kind == "langsmith":
                found = _langsmith(number, item)
            elif kind == "langfuse":
                found = _langfuse(number, item)
            else:
                found = _agents(number, item, groups)
            if found is not None:
                yield found


def json_items(path: Path) -> Iterator[tuple[int, Any]]:
    """Each JSON value of a file: one document (a list is read item by item) or JSON Lines."""
    try:
        with path.open("rb") as handle:
            first = handle.read(1)
            while first in (b" ", b"\n", b"\r", b"\t"):
                first = handle.read(1)
            handle.seek(0)
            if first == b"[":
                data = _whole(path, handle.read())
                listed = data if isinstance(data, list) else [data]
                yield from enumerate(listed, start=1)
                return
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield number, json.loads(line)
                except ValueError as error:
                    if not line.endswith(b"\n"):
                        raise TraceError(
                            f"{path}:{number}: the file ends in the middle of a record (truncated?)"
                        ) from None
                    # A pretty-printed single document: read it whole.
                    if number == 1:
                        handle.seek(0)
                        data = _whole(path, handle.read())
                        items = data.get("data") if isinstance(data, dict) else None
                        listed = items if isinstance(items, list) else [data]
                        yield from enumerate(listed, start=1)
                        return
                    raise TraceError(f"{path}:{number}: not JSON: {one_line(error)}") from None
    except OSError as error:
        raise TraceError(f"{path}: cannot read it: {one_line(error)}") from None


def _whole(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError as error:
        raise TraceError(f"{path}: not whole JSON (truncated?): {one_line(error)}") from None


__all__ = ["json_items", "langchain_message", "nanos", "read"]
