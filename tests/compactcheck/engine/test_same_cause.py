"""A provider rule and the law it restates, broken on the same failing round, are linked as one
cause in the report; the console shows them in one panel naming both laws."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from pydantic import JsonValue
from rich.console import Console

from compactcheck.engine.results import same_causes
from compactcheck.invariants import catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.render import print_report, render_html, render_junit, render_markdown
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport

ANTHROPIC = "anthropic_tool_result_has_prior_use"
INPUT: JsonValue = {"messages": [{"role": "user", "content": "go on"}]}
ANSWER: JsonValue = {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}


def _result(law: str, because: str, answer: JsonValue = ANSWER, round: int = 1) -> InvariantResult:
    example = Counterexample(
        round=round, because=because, witness=[], input=INPUT, output=answer, history_size=1
    )
    return InvariantResult(
        invariant=law,
        statement=law,
        verdict="violation",
        examples=1,
        exercised=1,
        compactions=1,
        counterexample=example,
    )


def _links(results: list[InvariantResult]) -> dict[str, list[str]]:
    linked = same_causes(results, {ANTHROPIC: "tool_pairing"})
    return {r.invariant: r.counterexample.same_cause for r in linked if r.counterexample}


def test_a_rule_and_the_law_it_restates_on_one_round_are_linked_both_ways() -> None:
    results = [
        _result("tool_pairing", "tool result call_1 has no call before it"),
        _result("goal_preserved", "the goal is gone"),
        _result(ANTHROPIC, "messages.0: tool_result for call_1 has no tool_use"),
    ]
    assert _links(results) == {
        "tool_pairing": [ANTHROPIC],
        "goal_preserved": [],
        ANTHROPIC: ["tool_pairing"],
    }


def test_a_different_answer_or_round_is_a_different_cause() -> None:
    other: JsonValue = {"messages": []}
    assert _links([_result("tool_pairing", "a"), _result(ANTHROPIC, "b", other)])[ANTHROPIC] == []
    assert _links([_result("tool_pairing", "a"), _result(ANTHROPIC, "b", round=2)])[ANTHROPIC] == []


def test_each_pairing_rule_of_a_provider_restates_a_law_of_every_format() -> None:
    laws = {law.id: law for law in catalogue("messages", ALL_FORMATS)}
    restating = {law.id for law in laws.values() if law.restates}
    assert ANTHROPIC in restating
    assert "responses_output_has_call" in restating
    assert all(laws[laws[i].restates].formats == () for i in restating)


def _report() -> Report:
    results = same_causes(
        [
            _result("tool_pairing", "tool result call_1 has no call before it"),
            _result(ANTHROPIC, "messages.0: tool_result for call_1 has no tool_use"),
            _result("goal_preserved", "the goal is gone", answer={"messages": []}),
        ],
        {ANTHROPIC: "tool_pairing"},
    )
    target = TargetReport(target="t", view="messages", format="anthropic", results=results)
    return Report(
        toolkit_version="0",
        seed=1,
        profile="ci",
        max_examples=1,
        rounds=1,
        complete=True,
        started_at="2026-12-01T00:00:00Z",
        targets=[target],
    )


def test_the_console_shows_one_panel_naming_both_laws_and_the_json_keeps_both() -> None:
    report = _report()
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=160))
    printed = buffer.getvalue()
    assert printed.count("╭─ violation") == 2
    assert f"violation 1: tool_pairing and {ANTHROPIC} on t" in printed
    assert f"{ANTHROPIC} (the same cause): messages.0: tool_result" in printed
    assert "violation 2: goal_preserved on t" in printed
    assert "violation 3" not in printed
    # The count line agrees with the panels: three violations, two causes.
    assert "3 violations of 2 causes" in printed
    again = Report.model_validate_json(report.model_dump_json())
    kept = [r.invariant for r in again.targets[0].results if r.verdict == "violation"]
    assert kept == ["tool_pairing", ANTHROPIC, "goal_preserved"]


def test_html_and_markdown_show_the_cause_once_from_the_json_report() -> None:
    report = Report.model_validate_json(_report().model_dump_json())
    page = render_html(report)
    assert page.count('<article id="violation-') == 2
    assert f"1. tool_pairing and {ANTHROPIC} on t" in page
    assert f"<strong>{ANTHROPIC} (the same cause):</strong> messages.0" in page
    assert '<article id="violation-3"' not in page
    assert "3 violations of 2 causes" in page
    # Both laws' cells of the matrix link to the one entry.
    assert page.count('href="#violation-1"') == 2
    text = render_markdown(report)
    assert text.count("### V") == 2
    escaped = ANTHROPIC.replace("_", "\\_")
    assert f"### V1: tool\\_pairing and {escaped} on t" in text
    assert text.count("(V1)") == 2
    assert "3 violations of 2 causes" in text
    assert text.count("**Minimal witness**") == 2


def test_junit_keeps_each_law_a_failed_test_and_tells_the_witness_once() -> None:
    report = Report.model_validate_json(_report().model_dump_json())
    root = ET.fromstring(render_junit(report).split("\n", 1)[1])
    failures = {case.get("name"): case.find("failure") for case in root.iter("testcase")}
    assert root.get("failures") == "3"
    first, folded = failures["tool_pairing"], failures[ANTHROPIC]
    assert first is not None
    assert folded is not None
    assert f"(violation 1: tool_pairing and {ANTHROPIC})" in (first.get("message") or "")
    assert f"{ANTHROPIC} (the same cause): messages.0" in (first.text or "")
    assert "witness:" in (first.text or "")
    assert "the same cause as tool_pairing (violation 1)" in (folded.text or "")
    assert "witness:" not in (folded.text or "")
    goal = failures["goal_preserved"]
    assert goal is not None
    assert "(violation" not in (goal.get("message") or "")
