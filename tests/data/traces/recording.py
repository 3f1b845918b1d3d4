"""Record the trace fixtures: each one a real agent, compactor and instrumentation (see README.md).

Regenerate the fixtures beside this file: ``.venv/bin/python -m tests.data.traces.recording``
(each in a fresh process: the conventions' opt-in is read once per process); ``one NAME OUT``
records one into the folder OUT and prints what the framework did; ``phoenix URL PROJECT``
records into a running Phoenix server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.data.traces import instrumentation as on
from tests.data.traces.agents import SUMMARY_MARK, Recording, summarizing_agent, trim_loop
from tests.data.traces.agents_sdk import agents_sdk_run
from tests.data.traces.services import write_langfuse, write_langsmith

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

Writer = Callable[[Path], Recording]
"""Records one fixture into the file it is given; what the framework did."""


def otlp(
    sink: Callable[[Path], Any],
    instrument: on.Instrument,
    env: dict[str, str],
    agent: Callable[[], Recording],
    resource: dict[str, str] | None = None,
) -> Writer:
    """A fixture of ``agent`` run under ``instrument`` with ``env``, written by ``sink``."""

    def write(path: Path) -> Recording:
        with on.environment(env), on.recorded(sink(path), instrument, resource) as ended:
            done = agent()
        done.path = path
        done.spans = ended[0]
        return done

    return write


def _langchain_export(kind: str) -> Writer:
    def write(path: Path) -> Recording:
        done, runs = summarizing_agent()
        if kind == "langsmith":
            write_langsmith(runs, path)
        else:
            write_langfuse(runs, path, session="thread-1")
        done.path = path
        return done

    return write


def _summary() -> Recording:
    return summarizing_agent()[0]


FIXTURES: dict[str, Writer] = {
    "otel-v1.30-events-trim.jsonl": otlp(on.json_lines, on.openai_v2, on.V130, trim_loop),
    "otel-latest-spans-trim.jsonl": otlp(on.json_lines, on.openai_v2, on.LATEST_SPANS, trim_loop),
    "otel-latest-events-trim.jsonl": otlp(on.json_lines, on.openai_v2, on.LATEST_EVENTS, trim_loop),
    "openinference-openai-trim.jsonl": otlp(on.json_lines, on.openinference_openai, {}, trim_loop),
    "otel-continuation.jsonl": otlp(
        on.json_lines, on.openai_v2, on.V130, lambda: trim_loop(4, 100_000)
    ),
    "otel-continuation-turns.jsonl": otlp(
        on.json_lines,
        on.openai_v2,
        on.LATEST_SPANS,
        lambda: trim_loop(4, 100_000, conversation="conv-7"),
    ),
    "otel-no-content.jsonl": otlp(on.json_lines, on.openai_v2, on.NO_CONTENT, lambda: trim_loop(3)),
    "openinference-langchain-summary.jsonl": otlp(
        on.json_lines, on.openinference_langchain, {}, _summary
    ),
    "otel-langchain-summary.jsonl": otlp(on.json_lines, on.openai_v2, on.LATEST_SPANS, _summary),
    # OTLP protobuf: length-prefixed requests (traces and logs in one file), and one request.
    "otel-v1.30-events-trim.pb": otlp(on.framed_protobuf, on.openai_v2, on.V130, trim_loop),
    "otel-latest-spans-trim.request.pb": otlp(
        on.request_body, on.openai_v2, on.LATEST_SPANS, trim_loop
    ),
    # The older conventions.
    "otel-v1.27-content-events-trim.jsonl": otlp(
        on.json_lines, on.conventions_v1_27, {}, trim_loop
    ),
    "openllmetry-prompt-attributes-trim.jsonl": otlp(
        on.json_lines, on.openllmetry, {"TRACELOOP_TRACE_CONTENT": "true"}, trim_loop
    ),
    # Tracing services' exports and the Agents SDK's own spans.
    "langsmith-runs-summary.jsonl": _langchain_export("langsmith"),
    "langfuse-observations-summary.json": _langchain_export("langfuse"),
    "openai-agents-session-limit.jsonl": agents_sdk_run,
    "openai-agents-responses.jsonl": lambda path: agents_sdk_run(path, responses=True),
}
"""Each fixture's writer, by file name."""


def record_one(name: str, out: Path) -> dict[str, Any]:
    """Record one fixture into ``out`` in this process; what the framework did."""
    done = FIXTURES[name](out / name)
    return {"calls": done.calls, "compacted": done.compacted}


def record_in_subprocess(name: str, out: Path) -> dict[str, Any]:
    """Record one fixture in a fresh Python process; what the framework did."""
    found = subprocess.run(
        [sys.executable, "-m", "tests.data.traces.recording", "one", name, str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(found.stdout.strip().splitlines()[-1])
    return result


def into_phoenix(url: str, project: str) -> dict[str, Any]:
    """Record the trimming agent under OpenInference's OpenAI instrumentation into a running
    Phoenix (OTLP/HTTP to its ``/v1/traces``, the project named by the resource, as Phoenix
    reads it); what the framework did, and how many spans were sent."""
    endpoint = f"{url.rstrip('/')}/v1/traces"
    write = otlp(
        lambda _: on.otlp_http(endpoint),
        on.openinference_openai,
        {},
        trim_loop,
        {"openinference.project.name": project},
    )
    done = write(Path(project))
    return {"calls": done.calls, "compacted": done.compacted, "spans": done.spans}


def main(out: Path = HERE) -> None:
    """Write every fixture, and what the framework did, beside this file."""
    expected = {name: record_in_subprocess(name, out) for name in FIXTURES}
    (out / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))


__all__ = ["FIXTURES", "SUMMARY_MARK", "record_in_subprocess", "record_one"]

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "one":
        print(json.dumps(record_one(sys.argv[2], Path(sys.argv[3]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "phoenix":
        print(json.dumps(into_phoenix(sys.argv[2], sys.argv[3])))
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
