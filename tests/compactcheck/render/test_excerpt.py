"""A long witness is cut in the console, with a line saying what was left out and where it is
whole; the JSON and HTML reports keep every character."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

from rich.console import Console

from compactcheck.render import print_report, render_html
from compactcheck.render.excerpt import BLOCK_LINES, CONTENT_LIMIT, excerpt, left_out_line
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport

NOTES = "Goal: fix the login bug\n" + "".join(
    f"- The job fails when field {n} is empty (ticket {n}); keep the order.\n" for n in range(80)
)
RESULT = "line of a long tool result\n" * 300


def _report() -> Report:
    witness = [
        {"role": "user", "content": NOTES},
        {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
    ]
    example = Counterexample(
        round=1,
        because="the output measures 2013 approx_tokens against a budget of 2000",
        witness=witness,
        input={"messages": witness},
        output={"messages": witness},
        history_size=2,
    )
    result = InvariantResult(
        invariant="budget_respected",
        statement="the output fits the budget",
        verdict="violation",
        examples=1,
        exercised=1,
        compactions=1,
        counterexample=example,
    )
    target = TargetReport(
        target="py:t.py:compact", view="messages", format="openai-chat", results=[result]
    )
    return Report(
        toolkit_version="0",
        seed=1,
        profile="ci",
        max_examples=10,
        rounds=3,
        complete=True,
        started_at="2026-12-01T00:00:00Z",
        targets=[target],
    )


def _printed(report: Report, reports: dict[str, Path] | None = None) -> str:
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=100), reports)
    return buffer.getvalue()


def test_a_long_witness_is_cut_in_the_console_and_says_what_is_left_out() -> None:
    printed = _printed(_report())
    left = len(NOTES) - CONTENT_LIMIT + len(RESULT) - CONTENT_LIMIT
    assert f"… [{len(NOTES) - CONTENT_LIMIT} more characters]" in printed
    assert f"{left} characters of 2 long contents left out" in " ".join(printed.split())
    # Without report files, the line says which options write the text whole.
    assert "--json FILE" in printed
    assert "ticket 79" not in printed
    assert len(printed.splitlines()) < 80


def test_the_cut_line_names_the_report_files_the_run_wrote(tmp_path: Path) -> None:
    files = {"json": tmp_path / "r.json", "html": tmp_path / "r.html", "junit": tmp_path / "r.xml"}
    flat = " ".join(_printed(_report(), files).replace("│", " ").split())
    assert f"{files['json']} and {files['html']} hold it whole" in flat
    assert "r.xml" not in flat


def test_the_json_and_html_reports_keep_the_whole_witness() -> None:
    report = _report()
    again = Report.model_validate_json(report.model_dump_json())
    example = again.targets[0].results[0].counterexample
    assert example is not None
    assert example.witness[0] == {"role": "user", "content": NOTES}
    page = html.unescape(render_html(report))
    assert json.dumps(RESULT)[1:-1] in page
    assert json.dumps(NOTES)[1:-1] in page


def test_a_short_witness_is_shown_whole_with_no_cut_line() -> None:
    shown = excerpt([{"role": "user", "content": "hello"}])
    assert not shown.cut
    assert '"hello"' in shown.text


def test_a_witness_of_many_items_is_held_to_a_screenful() -> None:
    shown = excerpt([{"role": "user", "content": f"message {n}"} for n in range(100)])
    lines = shown.text.splitlines()
    assert len(lines) == BLOCK_LINES
    assert shown.lines == 100 * 4 + 2 - (BLOCK_LINES - 1)
    assert f"… [{shown.lines} more lines]" in lines
    assert lines[-1] == "]"
    assert left_out_line(shown).startswith(f"(cut here: {shown.lines} lines left out;")


def test_a_long_string_counts_its_characters_as_shown() -> None:
    shown = excerpt("x" * (CONTENT_LIMIT + 5))
    assert (shown.characters, shown.contents) == (5, 1)
    assert "1 long content left out" in left_out_line(shown)
