"""A real OpenAI Agents SDK run, its trace spans exported as its own exporter sends them.

The agent runs several turns of one conversation on a ``SQLiteSession`` whose
``SessionSettings(limit=...)`` hands the model only the latest items: the SDK's own sliding
window, which compacts once the conversation outgrows it. The model is the chat completions
model on the official ``openai`` client over a fake ``httpx2`` transport (a scripted model: no
network). A tracing processor of ours, in place of the SDK's default one (which would send
to OpenAI), keeps each trace and span as ``export()`` makes it; they are written as the SDK's
``BackendSpanExporter`` posts them, ``{"data": [...]}``, one batch a line. With the Responses
model instead, a ``response`` span exports only the response id: no model input.
"""

from __future__ import annotations

import asyncio
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2

from tests.data.traces.agents import GOAL, SYSTEM, Recording, _answer, tool_result

TURNS = ("Now the token refresh.", "Now the routes.", "Now the models.", "Run the tests.")
ITEMS_PER_TURN = 6
"""A user message, two tool calls with their results, the answer."""


class TurnModel:
    """A fake model server: two tool calls a turn, then an answer (chat or Responses API)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        responses = request.url.path.endswith("/responses")
        items = body.get("input" if responses else "messages", [])
        # Items since the user's turn: 0 (the turn's first call), 2 (a call and its result), 4.
        tail = 0
        while tail < len(items) and items[-1 - tail].get("role") != "user":
            tail += 1
        step = self.calls
        self.calls += 1
        name = "read_file" if tail == 0 else "edit_file"
        arguments = json.dumps({"path": f"src/f{step}.py"})
        if responses:
            return _response(step, tail >= 4, name, arguments)
        if tail >= 4:
            return _answer({"role": "assistant", "content": f"Done with step {step}."}, "stop")
        call = {
            "id": f"call_{step}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        return _answer({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


def _response(step: int, done: bool, name: str, arguments: str) -> httpx2.Response:
    """A Responses API answer: the final message, or one function call."""
    item: dict[str, Any] = (
        {
            "type": "message",
            "id": f"msg_{step}",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": f"Done with step {step}.", "annotations": []}
            ],
        }
        if done
        else {
            "type": "function_call",
            "id": f"fc_{step}",
            "call_id": f"call_{step}",
            "name": name,
            "arguments": arguments,
            "status": "completed",
        }
    )
    return httpx2.Response(
        200,
        json={
            "id": f"resp_{step}",
            "object": "response",
            "created_at": 1_800_000_000,
            "model": "gpt-4o-mini",
            "status": "completed",
            "output": [item],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 15,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        },
    )


def _collector(kept: list[dict[str, Any]]) -> Any:
    from agents.tracing import TracingProcessor

    class Keeping(TracingProcessor):
        def on_trace_start(self, trace: Any) -> None:
            kept.append(trace.export())

        def on_trace_end(self, trace: Any) -> None:
            return None

        def on_span_start(self, span: Any) -> None:
            return None

        def on_span_end(self, span: Any) -> None:
            exported = span.export()
            if exported:
                kept.append(exported)

        def shutdown(self) -> None:
            return None

        def force_flush(self) -> None:
            return None

    return Keeping()


async def _run(path: Path, responses: bool, limit: int) -> Recording:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        RunConfig,
        Runner,
        SQLiteSession,
        function_tool,
        set_trace_processors,
    )
    from agents.memory import SessionSettings
    from openai import AsyncOpenAI

    kept: list[dict[str, Any]] = []
    set_trace_processors([_collector(kept)])

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        return tool_result("read_file", json.dumps({"path": path}))

    @function_tool
    def edit_file(path: str) -> str:
        """Edit a file."""
        return tool_result("edit_file", json.dumps({"path": path}))

    client = AsyncOpenAI(
        api_key="fake", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(TurnModel()))
    )
    model: Any = (
        OpenAIResponsesModel("gpt-4o-mini", client)
        if responses
        else OpenAIChatCompletionsModel("gpt-4o-mini", client)
    )
    agent = Agent(
        name="coding-agent", instructions=SYSTEM, model=model, tools=[read_file, edit_file]
    )
    session = SQLiteSession("conversation-1", session_settings=SessionSettings(limit=limit))
    recording = Recording(path)
    sent: list[str] = []

    def observe(data: Any) -> Any:
        # The framework's own record: what it hands the model at each call, unchanged.
        sent.append(json.dumps(data.model_data.input, default=str))
        return data.model_data

    config = RunConfig(
        group_id="conversation-1",
        call_model_input_filter=observe,
        trace_include_sensitive_data=True,
    )
    for turn in (GOAL, *TURNS):
        await Runner.run(agent, turn, session=session, run_config=config)
    for number, (before, after) in enumerate(pairwise(sent), start=1):
        old, new = json.loads(before), json.loads(after)
        if new[: len(old)] != old:
            recording.compacted.append(number)
    recording.calls = len(sent)
    with path.open("w", encoding="utf-8") as handle:
        # The SDK's exporter posts batches: a trace and its spans to a batch here.
        batch: list[dict[str, Any]] = []
        for item in kept:
            if item.get("object") == "trace" and batch:
                handle.write(json.dumps({"data": batch}, default=str) + "\n")
                batch = []
            batch.append(item)
        if batch:
            handle.write(json.dumps({"data": batch}, default=str) + "\n")
    return recording


def agents_sdk_run(
    path: Path, responses: bool = False, limit: int = 2 * ITEMS_PER_TURN
) -> Recording:
    """Run the agent's turns (chat completions model, or the Responses model), writing ``path``."""
    return asyncio.run(_run(path, responses, limit))


__all__ = ["agents_sdk_run"]
