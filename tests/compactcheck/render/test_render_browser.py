"""The HTML report in a real headless Chromium: no payload from a backend ever runs."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import JsonValue

from compactcheck.render import render_html
from compactcheck.render.html import _CSP
from compactcheck.render.index import Published, render_index
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
from tests.compactcheck.render.chromium import chromium, needs_chromium

pytestmark = needs_chromium

# Each payload, if it ran, would mark the body; the marks tell which one got through.
MARK = 'document.body.setAttribute("data-pwned-{0}", "1")'
PAYLOADS = [
    f"<script>{MARK.format('script')}</script>",
    f"<img src=x onerror='{MARK.format('img')}'>",
    f"\"><svg onload='{MARK.format('svg')}'>",
    f"</pre></details><script>{MARK.format('breakout')}</script>",
    f"<details open ontoggle='{MARK.format('toggle')}'>",
    f"<body onload='{MARK.format('onload')}'>",
]
HOSTILE = " ".join(PAYLOADS)
EVERY_MARK = {"script", "img", "svg", "breakout", "toggle", "onload"}


def hostile_report() -> Report:
    messages = [{"role": "user", "content": payload} for payload in PAYLOADS]
    example = Counterexample(
        round=1,
        because=HOSTILE,
        witness=messages,
        diff={"values_changed": {"root[0]": {"new_value": HOSTILE}}},
        input={"messages": messages},
        output={"messages": messages[:1]},
        history_size=len(messages),
        corpus_file=HOSTILE,
    )
    results = [
        InvariantResult(
            invariant="tool_call_pairing" + PAYLOADS[0],
            statement=HOSTILE,
            verdict="violation",
            examples=1,
            exercised=1,
            because=HOSTILE,
            counterexample=example,
        ),
        InvariantResult(
            invariant="goal_preserved",
            statement=HOSTILE,
            verdict="skipped",
            examples=0,
            exercised=0,
            because=HOSTILE,
        ),
    ]
    target = TargetReport(
        target="py:x.py:" + PAYLOADS[1],
        view="messages" + PAYLOADS[2],
        results=results,
        errors=[HOSTILE],
        stderr=HOSTILE,
    )
    return Report(
        toolkit_version=PAYLOADS[3],
        seed=7,
        profile=PAYLOADS[4],
        max_examples=1,
        rounds=1,
        complete=False,
        started_at=PAYLOADS[5],
        targets=[target],
    )


def dom_after_load(page: str, folder: Path) -> str:
    """The document as Chromium holds it once scripts (if any were allowed) have run."""
    dom = chromium(page, folder, "--virtual-time-budget=3000", "--dump-dom")
    assert "</html>" in dom
    return dom


def marks(dom: str) -> set[str]:
    return set(re.findall(r'data-pwned-([a-z]+)="1"', dom))


def test_the_detector_sees_a_script_that_runs(tmp_path: Path) -> None:
    # Without this control a broken browser setup would make the real checks pass vacuously.
    page = "<!DOCTYPE html><html><body><pre>" + HOSTILE + "</pre></body></html>"
    assert marks(dom_after_load(page, tmp_path)) == EVERY_MARK


def test_no_payload_runs_in_the_html_report(tmp_path: Path) -> None:
    page = render_html(hostile_report())
    dom = dom_after_load(page, tmp_path)
    assert marks(dom) == set()
    assert "tool_call_pairing&lt;script&gt;" in dom, "the payload is shown as text"


def test_escaping_alone_stops_every_payload_without_the_content_security_policy(
    tmp_path: Path,
) -> None:
    # The policy is a second wall; the escaping must hold on its own.
    page = render_html(hostile_report())
    assert _CSP in page
    dom = dom_after_load(
        page.replace(_CSP, "default-src *; script-src * 'unsafe-inline'"), tmp_path
    )
    assert marks(dom) == set()


def hostile_conversation() -> Report:
    """A messages witness whose every shown field (text, call ids, names, arguments) is hostile."""
    calls: list[JsonValue] = [
        {"id": payload, "type": "function", "function": {"name": payload, "arguments": payload}}
        for payload in PAYLOADS
    ]
    before: list[JsonValue] = [
        {"role": "system", "content": PAYLOADS[0]},
        {"role": "user", "content": HOSTILE},
        {"role": "assistant", "content": PAYLOADS[1], "tool_calls": calls},
    ]
    before += [{"role": "tool", "tool_call_id": p, "content": p} for p in PAYLOADS]
    after: list[JsonValue] = [before[0], before[3], {"role": "user", "content": HOSTILE + "!"}]
    example = Counterexample(
        round=1,
        because=HOSTILE,
        witness=after,
        input={"messages": before},
        output={"messages": after},
        history_size=len(before),
    )
    result = InvariantResult(
        invariant="tool_pairing",
        statement=HOSTILE,
        verdict="violation",
        examples=1,
        exercised=1,
        because=HOSTILE,
        counterexample=example,
    )
    target = TargetReport(target="t", view="messages", results=[result])
    return Report(
        toolkit_version="0", seed=7, profile="ci", max_examples=1, rounds=1, complete=True,
        started_at="now", targets=[target],
    )  # fmt: skip


def test_no_payload_runs_in_a_witness_shown_as_a_conversation(tmp_path: Path) -> None:
    page = render_html(hostile_conversation())
    # Nine messages handed in (system, user, the calls, six results), three answered.
    assert page.count('class="bubble') == 9 + 3, "every message is a bubble"
    assert 'class="badge orphaned"' in page
    for policy, folder in (
        (_CSP, "strict"),
        ("default-src *; script-src * 'unsafe-inline'", "open"),
    ):
        (tmp_path / folder).mkdir()
        dom = dom_after_load(page.replace(_CSP, policy), tmp_path / folder)
        assert marks(dom) == set(), policy
    assert "&lt;script&gt;" in dom


def test_no_payload_runs_in_the_published_index(tmp_path: Path) -> None:
    report = hostile_conversation()
    target = report.targets[0]
    result = target.results[0]
    assert result.counterexample is not None
    found = [
        Published(
            target=target,
            result=result,
            example=result.counterexample,
            parameters={"knob": HOSTILE},
            issues=(f"javascript:{MARK.format('link')}", "https://example.org/" + PAYLOADS[2]),
        )
    ]
    page = render_index(
        [report, hostile_report()],
        found,
        title=HOSTILE,
        intro=HOSTILE,
        levels_intro=HOSTILE,
        confirmations="../docs/real-compactors.md",
    )
    assert _CSP in page
    assert 'href="javascript:' not in page, "only https links are links"
    dom = dom_after_load(
        page.replace(_CSP, "default-src *; script-src * 'unsafe-inline'"), tmp_path
    )
    assert marks(dom) == set()
