"""Traces recorded by the real instrumentations around a real compactor, audited.

Each test records afresh (in a subprocess: the conventions' opt-in is read once per process)
with ``opentelemetry-instrumentation-openai-v2`` or OpenInference's OpenAI instrumentation,
driving the official ``openai`` client on a fake transport, LangChain's ``trim_messages``
between calls; the framework's own record of where it compacted is the oracle.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.instrumentation.openai_v2", reason="needs compactcheck[traces]")
pytest.importorskip("openinference.instrumentation.openai", reason="needs compactcheck[traces]")

from compactcheck.observed.judging import check_pair
from compactcheck.observed.traces import audit_traces
from compactcheck.observed.traces.calls import is_model_call
from compactcheck.observed.traces.records import Span
from compactcheck.observed.traces.sources import read
from compactcheck.verdicts.counts import pair_verdict
from tests.data.traces.recording import SUMMARY_MARK, record_in_subprocess

ROOT = Path(__file__).resolve().parents[4]
TRIMMED = [
    "otel-v1.30-events-trim.jsonl",
    "otel-latest-spans-trim.jsonl",
    "otel-latest-events-trim.jsonl",
    "openinference-openai-trim.jsonl",
    "openinference-langchain-summary.jsonl",
    "otel-langchain-summary.jsonl",
]


def _call_numbers(path: Path) -> dict[str, int]:
    """Each agent call's number in order (by start time); the summariser's own calls are not
    the agent's (the fake model knows them by the middleware's prompt)."""
    spans = [r for r in read(path) if isinstance(r, Span) and is_model_call(r)]
    agent = [s for s in spans if SUMMARY_MARK not in json.dumps(dict(s.attributes))]
    return {s.span_id: n for n, s in enumerate(sorted(agent, key=lambda s: s.start_ns))}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("traces")
    names = [*TRIMMED, "otel-continuation.jsonl", "otel-continuation-turns.jsonl",
             "otel-no-content.jsonl"]  # fmt: skip
    return out, {name: record_in_subprocess(name, out) for name in names}


@pytest.mark.parametrize("name", TRIMMED)
def test_every_compaction_the_framework_made_and_no_other(
    recorded: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, expected = recorded
    assert expected[name]["compacted"], "the recording must compact for this test to mean much"
    report = audit_traces([out / name])
    reading = report.targets[0].traces
    assert reading is not None
    numbers = _call_numbers(out / name)
    found = sorted(numbers[p.span_id] for p in reading.points)
    assert found == expected[name]["compacted"]
    assert len(numbers) == expected[name]["calls"]
    assert reading.continuations + reading.compactions == reading.pairs


@pytest.mark.parametrize("name", TRIMMED)
def test_each_point_is_judged_as_check_judges_its_pair(
    recorded: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, _ = recorded
    reading = audit_traces([out / name]).targets[0].traces
    assert reading is not None
    assert reading.points
    for point in reading.points:
        assert point.before is not None
        judgement = check_pair(point.before, point.after, format=point.format)  # type: ignore[arg-type]
        assert {f.invariant: pair_verdict(f) for f in judgement.findings} == point.laws
        assert [(v.invariant, v.because) for v in judgement.violations] == [
            (v.invariant, v.because) for v in point.violations
        ]


@pytest.mark.parametrize("name", ["otel-continuation.jsonl", "otel-continuation-turns.jsonl"])
def test_a_conversation_that_only_goes_on_has_no_compaction_point(
    recorded: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, expected = recorded
    assert expected[name]["compacted"] == []
    reading = audit_traces([out / name]).targets[0].traces
    assert reading is not None
    # Compared, each one: the provider's own fields (ids, nulls the client fills) are no change.
    assert reading.pairs == expected[name]["calls"] - 1 > 0
    assert reading.compactions == 0
    assert reading.points == []


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", "audit", *arguments],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip


def test_spans_without_content_say_which_setting_to_turn_on(
    recorded: tuple[Path, dict[str, Any]],
) -> None:
    out, _ = recorded
    done = _cli(str(out / "otel-no-content.jsonl"), "--quiet")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_truncated_trace_file_is_one_line_and_exit_2(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, _ = recorded
    data = (out / "otel-v1.30-events-trim.jsonl").read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) - 200])
    done = _cli(str(cut))
    assert done.returncode == 2
    assert "truncated" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr + done.stdout
    assert len((done.stderr + done.stdout).strip().splitlines()) == 1


def test_a_file_of_no_trace_format_is_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pb"
    junk.write_bytes(b"\x00\x01\x02not a protobuf request\xff" * 3)
    done = _cli(str(junk))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert "not an OTLP" in done.stderr + done.stdout


def test_the_cli_writes_a_result_per_point_in_every_format(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    out, _ = recorded
    name = out / "otel-latest-spans-trim.jsonl"
    done = _cli(str(name), "--quiet", "--json", str(tmp_path / "r.json"), "--html",
                str(tmp_path / "r.html"), "--markdown", str(tmp_path / "r.md"), "--junit",
                str(tmp_path / "r.xml"))  # fmt: skip
    assert done.returncode == 1, done.stderr
    points = json.loads((tmp_path / "r.json").read_text())["targets"][0]["traces"]["points"]
    assert points
    html, markdown, junit = ((tmp_path / f).read_text() for f in ("r.html", "r.md", "r.xml"))
    for point in points:
        for text in (html, markdown, junit):
            assert point["span_id"] in text
            assert point["trace_id"] in text
    assert html.count('class="exchange"') >= len(points)  # the conversation around each point
