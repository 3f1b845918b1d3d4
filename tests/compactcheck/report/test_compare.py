"""Summary matrices over several reports and regressions between two."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compactcheck.render import print_regressions, print_summary, render_summary_markdown
from compactcheck.report.compare import Regression, describe_diff, diff, summary
from compactcheck.report.io import load_report
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport, Verdict

GOLDEN = Path(__file__).parents[1] / "render" / "golden"


def result(
    invariant: str, verdict: Verdict, exercised: int = 5, because: str = ""
) -> InvariantResult:
    example = None
    if verdict == "violation":
        example = Counterexample(
            round=2, because=because or "x", witness=[], input=None, history_size=1
        )
    return InvariantResult(
        invariant=invariant,
        statement="s",
        verdict=verdict,
        examples=10,
        exercised=exercised,
        because=because or None,
        counterexample=example,
    )


def report(*targets: tuple[str, str, list[InvariantResult]]) -> Report:
    return Report(
        toolkit_version="0",
        seed=1,
        profile="ci",
        max_examples=10,
        rounds=3,
        complete=True,
        started_at="now",
        targets=[TargetReport(target=t, view=v, results=r) for t, v, r in targets],
    )


def test_summary_keeps_first_seen_order_and_later_reports_win() -> None:
    first = report(
        ("a", "messages", [result("pairing", "violation"), result("goal", "pass")]),
        ("b", "snapshot", [result("goal", "errored")]),
    )
    second = report(("a", "messages", [result("pairing", "pass"), result("budget", "unknown")]))
    table = summary([first, second])
    assert table.rows == (("a", "messages"), ("b", "snapshot"))
    assert table.invariants == ("pairing", "goal", "budget")
    pairing = table.cell(("a", "messages"), "pairing")
    assert pairing is not None
    assert pairing.result.verdict == "pass"
    assert pairing.report == 1
    goal = table.cell(("a", "messages"), "goal")
    assert goal is not None
    assert goal.report == 0, "a verdict the later report does not mention stays"
    assert table.cell(("b", "snapshot"), "budget") is None
    assert table.counts() == {
        "pass": 2,
        "review": 0,
        "violation": 0,
        "skipped": 0,
        "errored": 1,
        "unknown": 1,
        "waived": 0,
    }


def test_the_same_target_through_two_views_is_two_rows() -> None:
    table = summary([report(("a", "messages", [result("g", "pass")]), ("a", "session", []))])
    assert table.rows == (("a", "messages"), ("a", "session"))


def test_summary_of_nothing_is_empty() -> None:
    table = summary([])
    assert table.rows == ()
    assert table.invariants == ()
    assert "no results" in render_summary_markdown(table)


def kinds(regressions: list[Regression]) -> list[tuple[str, str, str]]:
    return [(r.target, r.invariant, r.kind) for r in regressions]


def test_diff_finds_each_kind_of_regression() -> None:
    old = report(
        (
            "a",
            "messages",
            [
                result("worse", "pass"),
                result("still_broken", "violation"),
                result("was_errored", "errored"),
                result("gone", "pass"),
                result("vacuous", "pass", exercised=7),
                result("recovered", "violation"),
                result("still_skipped", "skipped"),
            ],
        ),
        ("dropped", "messages", [result("goal", "pass")]),
    )
    new = report(
        (
            "a",
            "messages",
            [
                result("worse", "errored", because="boom"),
                result("still_broken", "violation"),
                result("was_errored", "violation", because="t7 orphaned"),
                result("vacuous", "pass", exercised=0),
                result("recovered", "pass"),
                result("still_skipped", "unknown"),
                result("brand_new", "violation"),
            ],
        ),
    )
    assert kinds(diff(old, new)) == [
        ("a", "worse", "worse"),
        ("a", "was_errored", "new_violation"),
        ("a", "vacuous", "vacuous"),
        ("a", "brand_new", "new_violation"),
        ("a", "gone", "disappeared"),
        ("dropped", "goal", "disappeared"),
    ]


def test_a_report_compared_with_itself_has_no_regressions() -> None:
    golden = load_report(GOLDEN / "report.json")
    assert diff(golden, golden) == []
    assert describe_diff([]) == "no regressions\n"


def test_a_pass_that_becomes_a_violation_is_reported_once_as_a_new_violation() -> None:
    old = report(("a", "messages", [result("pairing", "pass")]))
    new = report(("a", "messages", [result("pairing", "violation", because="t7 orphaned")]))
    (regression,) = diff(old, new)
    assert regression.kind == "new_violation"
    assert regression.describe() == (
        "pairing on a [messages]: new violation in round 2 (was pass): t7 orphaned"
    )


def test_descriptions_name_the_old_and_new_verdicts() -> None:
    old = report(("a", "messages", [result("x", "pass", exercised=3), result("y", "pass")]))
    new = report(("a", "messages", [result("x", "pass", exercised=0)]))
    text = describe_diff(diff(old, new))
    assert text == (
        "2 regression(s):\n"
        "  x on a [messages]: still passes but no longer exercised (0 of 10 examples)\n"
        "  y on a [messages]: was pass, missing from the new report\n"
    )
    worse = diff(
        report(("a", "m", [result("x", "pass")])),
        report(("a", "m", [result("x", "unknown", because="timed out")])),
    )
    assert worse[0].describe() == "x on a [m]: pass -> unknown: timed out"


def test_hostile_text_in_a_regression_is_made_harmless() -> None:
    hostile = load_report(GOLDEN / "hostile.json")
    regressions = diff(report(), hostile)
    assert [r.kind for r in regressions] == ["new_violation"]
    line = regressions[0].describe()
    assert "\x1b" not in line
    assert "\n" not in line
    assert "\\u202e" in line
    output = io.StringIO()
    print_regressions(regressions, Console(file=output, width=200, color_system=None))
    assert "\x1b" not in output.getvalue()


def test_summary_renders_as_a_console_table_and_markdown() -> None:
    reports = [load_report(GOLDEN / "report.json"), load_report(GOLDEN / "hostile.json")]
    table = summary(reports)
    output = io.StringIO()
    print_summary(table, Console(file=output, width=300, color_system=None))
    text = output.getvalue()
    assert "\x1b" not in text
    assert "[bold red]markup[/]" in text
    assert "mutant:drop-tool-results [messages]" in text
    markdown = render_summary_markdown(table)
    header = markdown.splitlines()[2]
    # One column per target and view plus the invariant column: five cells, six bare pipes.
    assert len(header.replace("\\|", "")) - len(header.replace("\\|", "").replace("|", "")) == 6
    assert "❌ violation" in markdown
