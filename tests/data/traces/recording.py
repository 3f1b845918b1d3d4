"""Record traces with the real instrumentations around real framework compactors.

Each recording drives an agent through the official ``openai`` client on a fake ``httpx``
transport (a scripted model: no network, no model), with a real compactor between calls:
LangChain's ``trim_messages`` or its ``SummarizationMiddleware``. What each recording returns
is the framework's own word on where it compacted, for the tests to check the audit against.

Regenerate the fixtures beside this file: ``.venv/bin/python -m tests.data.traces.recording``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
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


class ScriptedModel:
    """A fake chat completions server: reads and edits files in turn, then answers; summarises."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.agent_calls = 0
        self.summaries = 0
        self.log: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
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


def _answer(message: dict[str, Any], finish: str) -> httpx.Response:
    return httpx.Response(
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


# --------------------------------------------------------------------------------------------
# Instrumentation set-up


@contextmanager
def _env(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def otlp_file(path: Path, instrument: Callable[[Any, Any], Callable[[], None]]) -> Iterator[None]:
    """A tracer and logger provider writing OTLP JSON Lines to ``path`` (the real file exporter)."""
    from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    handle = path.open("w", encoding="utf-8")
    resource = Resource.create({"service.name": "coding-agent"})
    tracer = TracerProvider(resource=resource)
    tracer.add_span_processor(BatchSpanProcessor(FileSpanExporter(stream=handle)))
    logger = LoggerProvider(resource=resource)
    logger.add_log_record_processor(BatchLogRecordProcessor(FileLogExporter(stream=handle)))
    from opentelemetry import trace

    # Each fixture is recorded in a process of its own, so the global provider is set once.
    trace.set_tracer_provider(tracer)
    undo = instrument(tracer, logger)
    try:
        yield
    finally:
        undo()
        tracer.force_flush()
        logger.force_flush()
        tracer.shutdown()
        logger.shutdown()
        handle.close()


def openai_v2(tracer: Any, logger: Any) -> Callable[[], None]:
    """The official OpenTelemetry OpenAI instrumentation."""
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer, logger_provider=logger)
    return instrumentor.uninstrument


def openinference_openai(tracer: Any, logger: Any) -> Callable[[], None]:
    """OpenInference's OpenAI instrumentation."""
    del logger
    from openinference.instrumentation.openai import OpenAIInstrumentor

    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer)
    return instrumentor.uninstrument


def openinference_langchain(tracer: Any, logger: Any) -> Callable[[], None]:
    """OpenInference's LangChain instrumentation."""
    del logger
    from openinference.instrumentation.langchain import LangChainInstrumentor

    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=tracer)
    return instrumentor.uninstrument


# --------------------------------------------------------------------------------------------
# Agents


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
        api_key="fake", http_client=httpx.Client(transport=httpx.MockTransport(model))
    )
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
            response = client.chat.completions.create(
                model="gpt-4o-mini", messages=sent, tools=TOOLS
            )
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
    the middleware's own summary prompt). Returns the recording and LangChain's traced runs.
    """
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.tools import tool
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
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
        api_key="fake",  # type: ignore[arg-type]
        http_client=httpx.Client(transport=httpx.MockTransport(model)),
    )
    agent = create_agent(
        chat,
        [read_file, edit_file],
        system_prompt=SYSTEM,
        middleware=[
            SummarizationMiddleware(chat, trigger=("messages", trigger), keep=("messages", keep))
        ],
    )
    runs = RunCollectorCallbackHandler()
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
    return recording, list(runs.traced_runs)


# --------------------------------------------------------------------------------------------
# Writers


def record_otlp(
    path: Path,
    instrument: Callable[[Any, Any], Callable[[], None]],
    env: dict[str, str],
    agent: Callable[[], Recording],
) -> Recording:
    """Run ``agent`` under ``instrument`` with ``env`` set, writing OTLP JSON Lines to ``path``."""
    with _env(env), otlp_file(path, instrument):
        recording = agent()
    recording.path = path
    return recording


V130 = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}
LATEST_SPANS = {
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY",
}
LATEST_EVENTS = {
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "EVENT_ONLY",
}
NO_CONTENT = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "false"}


FIXTURES: dict[
    str, tuple[Callable[[Any, Any], Callable[[], None]], dict[str, str], Callable[[], Recording]]
] = {
    "otel-v1.30-events-trim.jsonl": (openai_v2, V130, trim_loop),
    "otel-latest-spans-trim.jsonl": (openai_v2, LATEST_SPANS, trim_loop),
    "otel-latest-events-trim.jsonl": (openai_v2, LATEST_EVENTS, trim_loop),
    "openinference-openai-trim.jsonl": (openinference_openai, {}, trim_loop),
    "otel-continuation.jsonl": (openai_v2, V130, lambda: trim_loop(4, 100_000)),
    "otel-continuation-turns.jsonl": (
        openai_v2,
        LATEST_SPANS,
        lambda: trim_loop(4, 100_000, conversation="conv-7"),
    ),
    "otel-no-content.jsonl": (openai_v2, NO_CONTENT, lambda: trim_loop(3)),
    "openinference-langchain-summary.jsonl": (
        openinference_langchain,
        {},
        lambda: summarizing_agent()[0],
    ),
    "otel-langchain-summary.jsonl": (openai_v2, LATEST_SPANS, lambda: summarizing_agent()[0]),
}
"""Each OTLP fixture: its instrumentation, the environment it runs in, and the agent."""


def record_one(name: str, out: Path) -> dict[str, Any]:
    """Record one fixture in this process (each needs its own: the conventions' opt-in is read
    once per process)."""
    instrument, env, agent = FIXTURES[name]
    done = record_otlp(out / name, instrument, env, agent)
    return {"calls": done.calls, "compacted": done.compacted}


def record_in_subprocess(name: str, out: Path) -> dict[str, Any]:
    """Record one fixture in a fresh Python process; what the framework did."""
    import subprocess

    root = HERE.parent.parent.parent
    found = subprocess.run(
        [sys.executable, "-m", "tests.data.traces.recording", "one", name, str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(found.stdout.strip().splitlines()[-1])
    return result


def main(out: Path = HERE) -> None:
    """Write every fixture, and what the framework did, beside this file."""
    expected = {name: record_in_subprocess(name, out) for name in FIXTURES}
    (out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "one":
        print(json.dumps(record_one(sys.argv[2], Path(sys.argv[3]))))
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
