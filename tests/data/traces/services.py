"""LangSmith and Langfuse exports of the summarising agent's run, written from LangChain's own runs.

LangSmith: LangChain's own ``LangChainTracer`` records the runs (its posting to the service is
replaced by keeping them); each is written as the SDK's model of a run as the API returns it
(``langsmith.schemas.Run``), one JSON object a line, as ``Client.list_runs`` exports read.

Langfuse: no Langfuse server here, so the observations are written from the same runs in the
documented shape of its observations API (``GET /api/public/v2/observations``: ``{"data":
[...], "meta": {...}}``, each observation with ``id``, ``traceId``, ``type``, ``name``,
``startTime``, ``endTime``, ``parentObservationId``, ``sessionId``, ``input``, ``output``,
``metadata``, ``model``), a generation's ``input`` as Langfuse's LangChain integration records a
chat model's messages: role dicts, LangChain's own tool calls, and each tool definition
appended as a ``{"role": "tool", "content": {...}}`` entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from uuid import UUID

PROJECT = UUID("00000000-0000-4000-8000-000000000049")


def langsmith_tracer() -> Any:
    """LangChain's LangSmith tracer keeping each run instead of posting it (in ``.runs``)."""
    from langchain_core.tracers.langchain import LangChainTracer
    from langsmith import Client
    from langsmith.schemas import LangSmithInfo

    # LangChain copies a tracer per run (with its own arguments): the copies share one store.
    store: dict[str, Any] = {}
    client = Client(
        api_key="fake", api_url="http://127.0.0.1:9", info=LangSmithInfo(), auto_batch_tracing=False
    )

    class Keeping(LangChainTracer):
        runs = store

        def __init__(self, **arguments: Any) -> None:
            # A client is required; nothing is ever sent through it (see the two hooks below).
            arguments.setdefault("client", client)
            arguments.setdefault("project_name", "coding-agent")
            super().__init__(**arguments)

        def _persist_run_single(self, run: Any) -> None:
            run.tags = self._get_tags(run)
            store[str(run.id)] = run

        @staticmethod
        def _update_run_single(run: Any) -> None:
            store[str(run.id)] = run

    return Keeping()


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def write_langsmith(runs: Iterable[Any], path: Path) -> None:
    """Each run as ``langsmith.schemas.Run`` JSON, one a line, in start order."""
    from langsmith.schemas import Run

    with path.open("w", encoding="utf-8") as handle:
        for run in sorted(runs, key=lambda r: r.start_time):
            exported = Run(
                id=run.id,
                name=run.name,
                start_time=run.start_time,
                end_time=run.end_time,
                run_type=run.run_type,
                extra=_plain(run.extra),
                error=run.error,
                serialized=None,
                events=_plain(run.events),
                inputs=_plain(run.inputs),
                outputs=_plain(run.outputs),
                parent_run_id=run.parent_run_id,
                tags=run.tags,
                session_id=PROJECT,
                trace_id=run.trace_id,
                dotted_order=run.dotted_order,
                status="error" if run.error else "success",
            )
            handle.write(exported.model_dump_json(exclude_none=True) + "\n")


def _role_dict(message: dict[str, Any]) -> dict[str, Any]:
    """One LangChain message dump as Langfuse's LangChain integration records it."""
    kind = message["id"][-1]
    fields = message["kwargs"]
    role = {
        "HumanMessage": "user",
        "AIMessage": "assistant",
        "SystemMessage": "system",
        "ToolMessage": "tool",
    }[kind]
    said: dict[str, Any] = {"role": role, "content": fields.get("content", "")}
    if role == "assistant" and fields.get("tool_calls"):
        said["tool_calls"] = fields["tool_calls"]
    if role == "tool":
        said["tool_call_id"] = fields.get("tool_call_id")
    if fields.get("additional_kwargs"):
        said["additional_kwargs"] = fields["additional_kwargs"]
    return said


_TYPES = {"llm": "GENERATION", "tool": "TOOL", "chain": "CHAIN"}


def write_langfuse(runs: Iterable[Any], path: Path, session: str) -> None:
    """The runs as one page of Langfuse's observations API."""
    observations: list[dict[str, Any]] = []
    for run in sorted(runs, key=lambda r: r.start_time):
        metadata = dict((run.extra or {}).get("metadata") or {})
        observation: dict[str, Any] = {
            "id": str(run.id),
            "traceId": str(run.trace_id),
            "projectId": "coding-agent",
            "type": _TYPES.get(run.run_type, "SPAN"),
            "name": run.name,
            "startTime": run.start_time.isoformat().replace("+00:00", "Z"),
            "endTime": run.end_time.isoformat().replace("+00:00", "Z") if run.end_time else None,
            "parentObservationId": str(run.parent_run_id) if run.parent_run_id else None,
            "sessionId": session,
            "level": "ERROR" if run.error else "DEFAULT",
            "environment": "default",
            "metadata": _plain({k: v for k, v in metadata.items() if k.startswith("langgraph")}),
        }
        if run.run_type == "llm":
            batch = (run.inputs or {}).get("messages") or [[]]
            said: list[dict[str, Any]] = [_role_dict(m) for m in _plain(batch[0])]
            tools = ((run.extra or {}).get("invocation_params") or {}).get("tools") or []
            said.extend({"role": "tool", "content": tool} for tool in _plain(tools))
            generations = (run.outputs or {}).get("generations") or [[{}]]
            answer = generations[-1][-1].get("message")
            observation |= {
                "input": said,
                "output": _role_dict(_plain(answer)) if answer else None,
                "model": metadata.get("ls_model_name"),
            }
        else:
            observation |= {"input": _plain(run.inputs), "output": _plain(run.outputs)}
        observations.append(observation)
    page = {"data": observations, "meta": {"cursor": None}}
    path.write_text(json.dumps(page, ensure_ascii=False) + "\n", encoding="utf-8")


__all__ = ["langsmith_tracer", "write_langfuse", "write_langsmith"]
