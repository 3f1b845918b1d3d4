"""Conformance levels and declared waivers: what a target reaches, and what a waiver cannot do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.invariants.levels import level_of
from compactcheck.report.model import InvariantResult, Verdict
from compactcheck.verdicts.levels import accepted_waivers, level_reached, level_text


def _result(
    law: str, verdict: Verdict, *, waived: str | None = None, because: str = ""
) -> InvariantResult:
    return InvariantResult(
        invariant=law,
        statement="",
        verdict=verdict,
        examples=1,
        exercised=1,
        compactions=1,
        because=because,
        level=level_of(law, law.startswith("gemini_")),
        waived=waived,
    )


ALL_PASS = [
    _result("tool_pairing", "pass"),
    _result("gemini_roles_user_model", "pass"),
    _result("goal_preserved", "pass"),
    _result("facts_preserved", "pass"),
    _result("budget_respected", "skipped", because="not applicable: no budget was declared"),
]


def test_every_law_held_reaches_level_three() -> None:
    assert level_reached(ALL_PASS) == 3


def test_a_structural_violation_is_level_zero_whatever_else_holds() -> None:
    results = [*ALL_PASS[1:], _result("tool_pairing", "violation")]
    assert level_reached(results) == 0
    assert level_reached([*ALL_PASS[:1], _result("gemini_roles_user_model", "violation")]) == 0


def test_a_waived_law_is_not_promised_so_its_level_is_not_reached() -> None:
    waived = _result("goal_preserved", "waived", waived="a sliding window")
    assert level_reached([*ALL_PASS[:2], waived, *ALL_PASS[3:]]) == 1
    # Passing does not help either: the author does not promise it.
    held = _result("goal_preserved", "pass", waived="a sliding window")
    assert level_reached([*ALL_PASS[:2], held, *ALL_PASS[3:]]) == 1


def test_an_unjudged_law_blocks_its_level() -> None:
    results = [*ALL_PASS[:3], _result("facts_preserved", "unknown")]
    assert level_reached(results) == 2
    assert level_reached([_result("tool_pairing", "errored")]) == 0


def test_reports_without_levels_have_no_level() -> None:
    old = _result("tool_pairing", "pass").model_copy(update={"level": 0})
    assert level_reached([old]) is None


def test_a_level_one_law_cannot_be_waived() -> None:
    kept, refused = accepted_waivers(
        {"tool_pairing": "x", "anthropic_tool_results_first": "y", "facts_preserved": "z"},
        {"anthropic_tool_results_first": True},
    )
    assert kept == {"facts_preserved": "z"}
    assert [line.split(":")[0] for line in refused] == [
        "waiver of tool_pairing refused",
        "waiver of anthropic_tool_results_first refused",
    ]


def window(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The system messages and the last four others: orphans results, loses the goal."""
    system = [m for m in messages if m["role"] == "system"]
    return system + [m for m in messages if m["role"] != "system"][-4:]


window.compactcheck_waivers = {  # type: ignore[attr-defined]
    "goal_preserved": "a sliding window keeps no content by design",
    "tool_pairing": "an attempt to waive a structural law",
}


def test_waivers_show_as_waived_and_never_turn_a_structural_violation_into_a_pass(
    tmp_path: Path,
) -> None:
    report = compactcheck.fuzz(window, max_examples=60, seed=0, corpus_dir=tmp_path)
    target = report.targets[0]
    verdicts = {r.invariant: r for r in target.results}
    assert verdicts["goal_preserved"].verdict == "waived"
    assert verdicts["goal_preserved"].counterexample is not None
    assert (verdicts["goal_preserved"].because or "").startswith(
        "waived (a sliding window keeps no content by design): the first user message"
    )
    assert verdicts["tool_pairing"].verdict == "violation"
    assert verdicts["tool_pairing"].waived is None
    assert any("waiver of tool_pairing refused" in error for error in target.errors)
    assert target.level == 0


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", "run", *arguments, "--profile", "ci",
         "--max-examples", "40", "--corpus", str(cwd / "corpus")],
        cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("target", "required", "code", "line"),
    [
        ("reference-messages", "3", 0, "ok: reference-messages [messages] reaches level 3 of 3"),
        ("mutant:messages-cut-parallel-results", "1", 1, "below: mutant:messages-cut-parallel"),
    ],
)
def test_require_level_gates_the_exit_code(
    target: str, required: str, code: int, line: str, tmp_path: Path
) -> None:
    done = _run(target, "--require-level", required, cwd=tmp_path)
    assert done.returncode == code, done.stdout + done.stderr
    assert line in done.stdout


def test_the_level_line_says_why_the_next_level_is_not_reached() -> None:
    unjudged = [_result("call_answered", "pass"), _result("tool_pairing", "unknown")]
    assert level_text(0, unjudged) == (
        "level 0 of 3; level 1 (the provider accepts it) not judged (no law of it was exercised, "
        "or a judgement errored)"
    )
    broken = [_result("tool_pairing", "violation")]
    assert level_text(0, broken) == "level 0 of 3; level 1 (the provider accepts it) broken"
    waived = [*ALL_PASS[:2], _result("goal_preserved", "waived", waived="a window")]
    assert level_text(1, waived) == (
        "level 1 of 3 (the provider accepts it); level 2 (the agent can carry on) not promised "
        "(waived)"
    )
    assert level_text(3, ALL_PASS) == "level 3 of 3 (nothing that matters is lost)"
