"""The agents the recordings drive: a scripted model behind the official clients, and real
framework compactors between its calls.

The model is fake (a scripted chat completions server on the ``httpx2`` transport the official
``openai`` client speaks: no network, no model). Each agent returns the framework's own word on
where it compacted, for the tests to check the audit against.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from tests.data.traces.services import langsmith_tracer

SYSTEM = (
    "You are a careful coding agent.\nRules:\n- Never push to main\n- Keep the public API unchanged"
)
GOAL = "Fix the login bug (AUTH-142): sessions drop after a token refresh."
FILES = ("src/auth/session.py", "src/auth/tokens.py", "src/api/routes.py", "src/db/models.py")
SUMMARY_MARK = "Messages to summarize"


@dataclass
class Recording:
    """Where a recording wrote its traces, and where the framework compacted."""

    path: Path
    calls: int = 0
    compacted: list[int] = field(default_factory=list)
    """The agent calls (0-based, in order) whose history the framework compacted."""
    summaries: int = 0
    spans: int = 0
    """The spans the tracer ended (where the recording counts them)."""


class ScriptedModel:
    """A fake chat completions server: reads and edits files in turn, then answers; summarises."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.agent_calls = 0
        self.summaries = 0
        self.log: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        messages = body.get("messages", [])
        last = messages[-1] if messages else {}
        text = (
            last.get("content")
            if isinstance(last.get("content"), str)
            else json.dumps(last.get("content"))
        )
        if SUMMARY_MARK in (text or ""):
            self.summaries += 1
            self.log.append("summary")
            said = (
                "## SESSION INTENT\nFix the login bug (AUTH-142).\n## SUMMARY\nRead and edited "
                "the auth modules.\n## ARTIFACTS\nsrc/auth/session.py\n"
                "## NEXT STEPS\nRun the tests."
            )
            return _answer({"role": "assistant", "content": said}, "stop")
        step = self.agent_calls
        self.agent_calls += 1
        self.log.append("agent")
        if step >= self.steps:
            return _answer(
                {"role": "assistant", "content": "Done: the session now survives a refresh."},
                "stop",
            )
        path = FILES[(step // 2) % len(FILES)]
        name = "read_file" if step % 2 == 0 else "edit_file"
        arguments: dict[str, Any] = {"path": path}
        if name == "edit_file":
            arguments["text"] = f"# patched {step}\n"
        call = {
            "id": f"call_{step}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return _answer({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


def _answer(message: dict[str, Any], finish: str) -> httpx2.Response:
    return httpx2.Response(
        200,
        json={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_800_000_000,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    )


def tool_result(name: str, arguments: str) -> str:
    """What the fake tools answer."""
    path = json.loads(arguments).get("path", "?")
    if name == "read_file":
        return "\n".join(f"{path}:{n}: token = refresh(token)  # line {n}" for n in range(1, 9))
    return f"wrote {path}"


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": n,
            "description": f"{n} a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for n in ("read_file", "edit_file")
]


def trim_loop(steps: int = 10, max_tokens: int = 260, conversation: str = "") -> Recording:
    """An agent loop on the openai client, LangChain's trim_messages before every call.

    The agent keeps its whole history and hands the model a trimmed view of it; the framework
    compacted at a call when the view is not the previous view with messages appended.
    """
    import openai
    from langchain_core.messages import convert_to_messages, convert_to_openai_messages
    from langchain_core.messages.utils import count_tokens_approximately, trim_messages
    from opentelemetry import trace

    model = ScriptedModel(steps)
    client = openai.OpenAI(
        api_key="fake", http_client=httpx2.Client(transport=httpx2.MockTransport(model))
    )
    # Plain dicts in, as an agent loop keeps them (the client's typed params are not its point).
    create: Any = client.chat.completions.create
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": GOAL},
    ]
    recording = Recording(Path())
    previous: list[Any] | None = None
    tracer = trace.get_tracer("agent")
    # One trace for the agent's run, as an agent framework opens it; with a conversation id,
    # one trace per turn instead, tied together by gen_ai.conversation.id.
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "coding-agent"}
    run = tracer.start_span("invoke_agent coding-agent", attributes=root)
    for number in range(steps + 1):
        view = trim_messages(
            convert_to_messages(history),
            max_tokens=max_tokens,
            token_counter=count_tokens_approximately,
            strategy="last",
            include_system=True,
            start_on=("human", "ai"),
        )
        sent = convert_to_openai_messages(view)
        if previous is not None and sent[: len(previous)] != previous:
            recording.compacted.append(number)
        previous = sent
        if conversation:
            turn = tracer.start_span(
                "agent turn", attributes={"gen_ai.conversation.id": conversation}
            )
        else:
            turn = tracer.start_span("agent turn", context=trace.set_span_in_context(run))
        with trace.use_span(turn, end_on_exit=True):
            response = create(model="gpt-4o-mini", messages=sent, tools=TOOLS)
        recording.calls += 1
        message = response.choices[0].message
        said = message.model_dump(exclude_none=True)
        said.setdefault("content", None)
        history.append(said)
        for call in message.tool_calls or ():
            history.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": tool_result(call.function.name, call.function.arguments),
                }
            )
        if not message.tool_calls:
            break
    run.end()
    return recording


def _invoke(agent: Any, runs: Any) -> None:
    agent.invoke(
        {"messages": [{"role": "user", "content": GOAL}]},
        config={"callbacks": [runs], "recursion_limit": 200, "metadata": {"thread_id": "thread-1"}},
    )


def summarizing_agent(
    steps: int = 8, trigger: int = 7, keep: int = 4
) -> tuple[Recording, list[Any]]:
    """LangChain's create_agent with SummarizationMiddleware, ChatOpenAI on the fake transport.

    The framework compacted at the agent call after each summariser call (the fake model sees
    the middleware's own summary prompt). Returns the recording and every run LangChain's
    LangSmith tracer recorded.
    """
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return tool_result("read_file", json.dumps({"path": path}))

    @tool
    def edit_file(path: str, text: str = "") -> str:
        """Edit a file."""
        return tool_result("edit_file", json.dumps({"path": path}))

    model = ScriptedModel(steps)
    chat = ChatOpenAI(
        model="gpt-4o-mini",
        api_key="fake",
        http_client=httpx2.Client(transport=httpx2.MockTransport(model)),
    )
    agent = create_agent(
        chat,
        [read_file, edit_file],
        system_prompt=SYSTEM,
        middleware=[
            SummarizationMiddleware(chat, trigger=("messages", trigger), keep=("messages", keep))
        ],
    )
    # LangChain's own LangSmith tracer, keeping every run (its posting replaced).
    runs = langsmith_tracer()
    from opentelemetry import trace

    # The application's own span around the agent's run: the client spans of one run share it.
    with trace.get_tracer("app").start_as_current_span("invoke_agent"):
        _invoke(agent, runs)
    recording = Recording(Path(), summaries=model.summaries)

    agent_number = 0
    for previous, entry in zip(["agent", *model.log], model.log, strict=False):
        if entry == "agent":
            if previous == "summary":
                recording.compacted.append(agent_number)
            agent_number += 1
    recording.calls = agent_number
    return recording, list(runs.runs.values())


__all__ = [
    "FILES",
    "GOAL",
    "SUMMARY_MARK",
    "SYSTEM",
    "TOOLS",
    "Recording",
    "ScriptedModel",
    "summarizing_agent",
    "tool_result",
    "trim_loop",
]
