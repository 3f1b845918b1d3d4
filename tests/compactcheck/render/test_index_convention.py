"""One index convention in every message of a report: the console and the HTML agree."""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console

from compactcheck.observed.judging import check_pair
from compactcheck.render import print_report
from compactcheck.render.html import render_html
from compactcheck.render.markdown import render_markdown
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport

SYSTEM = "Be careful. Never push to main."
BEFORE: dict[str, Any] = {
    "system": SYSTEM,
    "messages": [
        {"role": "user", "content": "Fix the login bug (AUTH-142)"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"p": "a"}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "ok"}],
        },
        {"role": "assistant", "content": "Found it."},
        {"role": "user", "content": "Go on."},
    ],
}
# The compactor kept the last three messages blindly: a tool_result now opens the history.
AFTER: dict[str, Any] = {"system": SYSTEM, "messages": BEFORE["messages"][2:]}


def _report() -> Report:
    judgement = check_pair(BEFORE, AFTER, format="anthropic")
    results = []
    for law in ("tool_pairing", "anthropic_tool_result_has_prior_use"):
        [violation] = [v for v in judgement.violations if v.invariant == law]
        example = Counterexample(
            round=1,
            because=violation.because,
            witness=list(violation.witness),
            input=BEFORE,
            output=AFTER,
            history_size=len(BEFORE["messages"]),
        )
        results.append(
            InvariantResult(
                invariant=law,
                statement="",
                verdict="violation",
                examples=1,
                exercised=1,
                because=violation.because,
                counterexample=example,
            )
        )
    target = TargetReport(target="mine", view="messages", format="anthropic", results=results)
    return Report(
        toolkit_version="0",
        seed=0,
        profile="ci",
        max_examples=1,
        rounds=1,
        complete=True,
        started_at="2026-12-01T00:00:00Z",
        targets=[target],
    )


def test_console_and_html_count_and_number_the_messages_alike() -> None:
    report = _report()
    [pairing, provider] = report.targets[0].results
    # The laws' own texts: the generic law counts the system prompt, the provider rule does not.
    assert pairing.because is not None
    assert "at output index 1" in pairing.because
    assert provider.because is not None
    assert provider.because.startswith("messages.0:")

    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=120))
    console = buffer.getvalue()
    html = render_html(report)
    markdown = render_markdown(report)

    # Six messages as the laws read them (the system prompt is one), five in the request's list.
    for text in (console, html, markdown):
        assert "history of 6 messages" in text
        assert "history of 5" not in text
    assert "Handed to the compactor (6 messages)" in html
    assert "What it answered (4 messages)" in html

    # Output index 1 is the tool result, which the request holds at messages.0: both views
    # number it 1 and name its path.
    assert "1 (messages.0): tool for call_1: ok" in console
    assert "0 (system): system: " + SYSTEM in console
    bubble = re.search(r'id="[^"]*-out-1">(.*?)</li>', html, re.S)
    assert bubble is not None
    assert "#1 &middot; messages.0" in bubble.group(1)
    assert "role-tool" in html.split('-out-1"')[0].rsplit("<li", 1)[1]
