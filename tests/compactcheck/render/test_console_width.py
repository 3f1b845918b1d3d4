"""At 80 columns the console stays readable: no law id or target name broken across lines."""

from __future__ import annotations

from compactcheck.render import render_console
from compactcheck.render.console import shortened
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport

LONG_LAWS = ("anthropic_server_tool_result_follows_use", "responses_item_keeps_its_reasoning")
BASE = "py:/home/someone/projects/agent-platform/services/context/compactors/"
TARGETS = (f"{BASE}summarising.py:compact", f"{BASE}summarising.py:compact_v2", "reference")


def _target(name: str) -> TargetReport:
    results = [
        InvariantResult(
            invariant=law,
            statement="",
            verdict="pass",
            examples=100,
            exercised=90,
            compactions=95,
            because="held on 95 compactions; 90 exercised it",
        )
        for law in LONG_LAWS
    ]
    return TargetReport(target=name, view="messages", results=results, format="anthropic")


REPORT = Report(
    toolkit_version="0",
    seed=0,
    profile="ci",
    max_examples=100,
    rounds=3,
    complete=True,
    started_at="2026-12-01T00:00:00Z",
    targets=[_target(name) for name in TARGETS],
)


def test_every_line_fits_and_every_law_id_is_whole_at_80_columns() -> None:
    text = render_console(REPORT, width=80)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    for law in LONG_LAWS:
        assert sum(law in line for line in lines) == len(TARGETS)


def test_long_target_names_are_cut_in_the_middle_and_stay_distinct() -> None:
    titles = [f"{name} [messages, anthropic]" for name in TARGETS]
    cut = shortened(titles, 60)
    assert len(set(cut)) == len(cut)
    assert all(len(title) <= 60 for title in cut)
    assert cut[2] == "reference [messages, anthropic]"
    assert cut[0].startswith("py:/home/")
    assert cut[0].endswith("compact [messages, anthropic]")
    assert cut[1].endswith("compact_v2 [messages, anthropic]")
    text = render_console(REPORT, width=80)
    for title in shortened(titles, 76):
        assert title in text


def test_names_that_differ_only_in_the_middle_are_numbered() -> None:
    names = [f"py:{'a' * 40}{middle}{'b' * 40}" for middle in ("x", "y")]
    cut = shortened(names, 30)
    assert len(set(cut)) == 2
    assert all(len(name) <= 30 for name in cut)


def test_a_wide_terminal_keeps_the_one_table_layout() -> None:
    assert "target [view]" in render_console(REPORT, width=140)
    assert "target [view]" not in render_console(REPORT, width=80)


def test_a_violation_shows_what_the_compactor_returned_a_line_per_message() -> None:
    returned = [{"role": "user", "content": f"message {n} " + "x" * 90} for n in range(20)]
    example = Counterexample(
        round=1,
        because="the goal is gone",
        witness=[],
        input={"messages": []},
        output={"messages": returned},
        history_size=20,
    )
    broken = (
        REPORT.targets[2]
        .results[0]
        .model_copy(
            update={
                "verdict": "violation",
                "counterexample": example,
                "because": "the goal is gone",
            }
        )
    )
    target = REPORT.targets[2].model_copy(update={"results": [broken]})
    text = render_console(REPORT.model_copy(update={"targets": [target]}), width=100)
    assert "the compactor returned:" in text
    # Numbered as the laws index the output, the Anthropic request's path beside each.
    assert "0 (messages.0): user: message 0 xxxx" in text
    assert "... 9 more" in text
    assert "19 (messages.19): user: message 19" in text
    assert "10 (messages.10)" not in text
