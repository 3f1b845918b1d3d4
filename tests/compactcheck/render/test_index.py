"""The published index page: levels, waivers, matrix and witnesses, from the shared layout."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from pydantic import JsonValue

from compactcheck.render._layout import _ENVIRONMENT, CSP
from compactcheck.render.html import render_html
from compactcheck.render.index import Published, level_rows, render_index
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport

ISSUE = "https://example.org/issues/1"


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.links: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append(dict(attrs).get("href"))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _report() -> Report:
    messages: list[JsonValue] = [
        {"role": "user", "content": "Goal: ship"},
        {"role": "user", "content": "go on"},
    ]
    example = Counterexample(
        round=2,
        because="the goal was dropped",
        witness=messages[:1],
        input={"messages": messages, "knobs": [1]},
        output={"messages": messages[1:], "parameters": {"size": 1}},
        history_size=2,
    )
    results = [
        InvariantResult(
            invariant="tool_pairing", statement="s", verdict="pass", examples=5, exercised=5,
            level=1,
        ),
        InvariantResult(
            invariant="goal_preserved", statement="s", verdict="violation", examples=5,
            exercised=5, level=2, because="the goal was dropped", counterexample=example,
        ),
        InvariantResult(
            invariant="facts_preserved", statement="s", verdict="waived", examples=5,
            exercised=5, level=3, waived="keeps no content by design",
        ),
    ]  # fmt: skip
    target = TargetReport(target="window", view="messages", results=results, level=1)
    return Report(
        toolkit_version="0", seed=0, profile="ci", max_examples=5, rounds=3, complete=True,
        started_at="now", targets=[target],
    )  # fmt: skip


def _page(report: Report) -> str:
    target = report.targets[0]
    result = target.results[1]
    assert result.counterexample is not None
    found = [Published(target, result, result.counterexample, {"size": 1}, (ISSUE,))]
    return render_index(
        [report],
        found,
        title="Conformance",
        intro="Seed 0.",
        levels_intro="Level 1: the provider accepts it.",
        confirmations="../docs/real-compactors.md",
    )


def test_the_index_shows_levels_waivers_matrix_and_witnesses() -> None:
    page = _page(_report())
    parser = _Text()
    parser.feed(page)
    text = " ".join(" ".join(parser.text).split())
    assert (
        "window level 1 of 3 (the provider accepts it); level 2 (the agent can carry on) broken"
        in text
    )
    assert "facts_preserved (keeps no content by design)" in text
    assert "because the goal was dropped" in text
    assert 'parameters {"size": 1}' in text
    assert parser.links == ["../docs/real-compactors.md", "#witness-1", ISSUE]
    assert '<td class="waived">waived</td>' in page
    assert '<td class="violation"><a href="#witness-1">violation</a></td>' in page
    assert '<article id="witness-1">' in page
    assert 'class="bubble role-user dropped"' in page, "the witness is shown as a conversation"
    assert f'content="{CSP}"' in page


def test_level_rows_say_none_without_waivers() -> None:
    report = _report()
    plain = report.targets[0].model_copy(update={"results": report.targets[0].results[:1]})
    rows = level_rows([report.model_copy(update={"targets": [plain]})])
    ((name, level, waived),) = rows
    assert (name, waived) == ("window", "none")
    assert level.startswith("level 1 of 3 (the provider accepts it); level 2")


def test_the_charts_block_renders_nothing_until_a_page_fills_it() -> None:
    for page in (_page(_report()), render_html(_report())):
        assert "charts" not in page
    child = _ENVIRONMENT.from_string(
        '{% extends "base.html.j2" %}'
        "{% block results %}<p>results</p>{% endblock %}"
        '{% block charts %}<section class="charts">drawn</section>{% endblock %}'
        "{% block details %}<p>details</p>{% endblock %}"
    )
    drawn = child.render(csp=CSP, title="t")
    assert re.search(
        r"<p>results</p>\s*<section class=\"charts\">drawn</section>\s*<p>details", drawn
    )
