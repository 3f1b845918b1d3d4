"""Every reader on the fixtures recorded for it: OTLP protobuf (both forms), the older GenAI
conventions, LangSmith runs, Langfuse observations and the OpenAI Agents SDK's spans.

The fixtures in tests/data/traces/ were written by ``tests.data.traces.recording`` (see its
README); ``expected.json`` beside them is the framework's own record of where it compacted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.observed.judging import check_pair
from compactcheck.observed.traces import audit_traces
from compactcheck.observed.traces.calls import is_model_call
from compactcheck.observed.traces.conversations import NEW_SEQUENCE
from compactcheck.observed.traces.records import Call, Span
from compactcheck.observed.traces.sources import kind_of, read
from compactcheck.report.trace_points import TraceReading
from compactcheck.verdicts.counts import pair_verdict

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "tests" / "data" / "traces"
EXPECTED: dict[str, Any] = json.loads((DATA / "expected.json").read_text())
SUMMARY_MARK = "Messages to summarize"

READERS = {
    "otel-v1.30-events-trim.pb": "otlp-proto",
    "otel-latest-spans-trim.request.pb": "otlp-proto",
    "otel-v1.27-content-events-trim.jsonl": "otlp-json",
    "openllmetry-prompt-attributes-trim.jsonl": "otlp-json",
    "langsmith-runs-summary.jsonl": "langsmith",
    "langfuse-observations-summary.json": "langfuse",
    "openai-agents-session-limit.jsonl": "openai-agents",
}
SOURCES = {
    "otel-v1.30-events-trim.pb": "gen_ai.*.message events",
    "otel-latest-spans-trim.request.pb": "gen_ai.input.messages",
    "otel-v1.27-content-events-trim.jsonl": "gen_ai.content.prompt event",
    "openllmetry-prompt-attributes-trim.jsonl": "gen_ai.prompt.N attributes",
    "langsmith-runs-summary.jsonl": "langsmith run",
    "langfuse-observations-summary.json": "langfuse generation",
    "openai-agents-session-limit.jsonl": "openai-agents generation span",
}

pytest.importorskip(
    "opentelemetry.proto", reason="reading OTLP protobuf needs compactcheck[traces]"
)


def agent_calls(path: Path) -> dict[str, int]:
    """Each agent call's number (0-based, by start time), read independently of the audit:
    every model-call span or call record, less the summariser's own (its prompt is the
    middleware's)."""
    found: list[tuple[int, str]] = []
    for record in read(path):
        if isinstance(record, Span) and is_model_call(record):
            text = json.dumps(dict(record.attributes)) + json.dumps(
                [e.attributes for e in record.events]
            )
        elif isinstance(record, Call):
            text = json.dumps(record.history)
        else:
            continue
        if SUMMARY_MARK not in text:
            found.append((record.start_ns, record.span_id))
    return {span: number for number, (_, span) in enumerate(sorted(found))}


def _reading(path: Path) -> TraceReading:
    reading = audit_traces([path]).targets[0].traces
    assert reading is not None
    return reading


@pytest.mark.parametrize("name", READERS)
def test_the_format_is_read_from_the_first_bytes(name: str) -> None:
    assert kind_of(DATA / name) == READERS[name]


@pytest.mark.parametrize("name", READERS)
def test_every_compaction_the_framework_made_and_no_other(name: str) -> None:
    expected = EXPECTED[name]
    assert expected["compacted"], "the recording must compact for this test to mean much"
    reading = _reading(DATA / name)
    numbers = agent_calls(DATA / name)
    assert len(numbers) == expected["calls"]
    assert sorted(numbers[p.span_id] for p in reading.points) == expected["compacted"]
    assert reading.continuations + reading.compactions == reading.pairs
    assert {p.source for p in reading.points} == {SOURCES[name]}
    # The summariser's own calls are each a conversation of their own, counted as such.
    assert set(reading.skipped) <= {NEW_SEQUENCE}


@pytest.mark.parametrize("name", READERS)
def test_each_point_is_judged_as_check_judges_its_pair(name: str) -> None:
    reading = _reading(DATA / name)
    assert reading.points
    for point in reading.points:
        assert point.before is not None
        judgement = check_pair(point.before, point.after, format=point.format)  # type: ignore[arg-type]
        assert {f.invariant: pair_verdict(f) for f in judgement.findings} == point.laws
        assert [(v.invariant, v.because) for v in judgement.violations] == [
            (v.invariant, v.because) for v in point.violations
        ]


def test_the_protobuf_forms_read_the_same_calls_as_their_json_twins() -> None:
    # The same agent under the same instrumentation, written as JSON Lines and as protobuf:
    # the same messages at the same compaction points (ids and times differ by recording).
    for proto, twin in (
        ("otel-v1.30-events-trim.pb", "otel-v1.30-events-trim.jsonl"),
        ("otel-latest-spans-trim.request.pb", "otel-latest-spans-trim.jsonl"),
    ):
        ours, theirs = _reading(DATA / proto), _reading(DATA / twin)
        assert [p.after for p in ours.points] == [p.after for p in theirs.points]
        assert ours.log_events == theirs.log_events


def test_the_framed_file_holds_traces_and_logs_requests() -> None:
    data = (DATA / "otel-v1.30-events-trim.pb").read_bytes()
    sizes = []
    at = 0
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        sizes.append(size)
        at += 4 + size
    assert at == len(data)
    assert len(sizes) >= 2  # at least one traces request and one logs request
    reading = _reading(DATA / "otel-v1.30-events-trim.pb")
    assert reading.spans > 0
    assert reading.log_events > 0


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", "audit", *arguments],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip


def test_a_protobuf_file_cut_short_is_one_line_and_exit_2(tmp_path: Path) -> None:
    data = (DATA / "otel-v1.30-events-trim.pb").read_bytes()
    cut = tmp_path / "cut.pb"
    cut.write_bytes(data[: len(data) - 100])
    done = _cli(str(cut))
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2, said
    assert "cut short" in said
    assert len(said.splitlines()) == 1
    assert "Traceback" not in said


def test_agents_sdk_response_spans_without_model_input_are_skipped_saying_why() -> None:
    name = "openai-agents-responses.jsonl"
    reading = _reading(DATA / name)
    [(reason, count)] = reading.skipped.items()
    assert count == EXPECTED[name]["calls"]
    assert "without its model input" in reason
    assert "chat completions model" in reason
    assert reading.pairs == 0
    done = _cli(str(DATA / name), "--quiet")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "without its model input" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_the_langsmith_runs_query_page_and_a_list_read_alike(tmp_path: Path) -> None:
    runs = [json.loads(line) for line in (DATA / "langsmith-runs-summary.jsonl").open()]
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"runs": runs, "cursors": {"next": None}}, indent=2))
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(runs))
    expected = [p.after for p in _reading(DATA / "langsmith-runs-summary.jsonl").points]
    assert expected
    for path in (page, listed):
        assert kind_of(path) == "langsmith"
        assert [p.after for p in _reading(path).points] == expected


def test_langfuse_tool_definitions_are_not_read_as_messages() -> None:
    page = json.loads((DATA / "langfuse-observations-summary.json").read_text())
    generations = [o for o in page["data"] if o["type"] == "GENERATION"]
    # The recording appends the tool definitions as Langfuse's LangChain integration does.
    assert any(
        m["role"] == "tool" and isinstance(m["content"], dict)
        for o in generations
        for m in o["input"]
    )
    for point in _reading(DATA / "langfuse-observations-summary.json").points:
        for message in [*point.before, *point.after]:  # type: ignore[misc]
            assert message["role"] != "tool" or message.get("tool_call_id")


def test_past_the_limit_points_are_counted_violations_held_first(tmp_path: Path) -> None:
    path = DATA / "otel-latest-spans-trim.jsonl"
    every = _reading(path).points
    broken = [p.number for p in every if p.violations]
    assert len(every) > 3
    assert len(broken) >= 2
    reading = audit_traces([path], keep_points=2).targets[0].traces
    assert reading is not None
    assert [p.number for p in reading.points] == broken[:2]
    assert reading.points_left_out == len(every) - 2
    assert reading.compactions == len(every)
    # --points writes every one, whatever the limit.
    out = tmp_path / "points.jsonl"
    done = _cli(str(path), "--quiet", "--keep-points", "2", "--points", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["number"] for p in written] == [p.number for p in every]
    assert "points judged but not listed" in done.stdout
