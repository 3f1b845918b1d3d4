"""The fix hint: each messages counterexample carries the repair that would have made its
answer lawful, and a report written before the hint still loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import compactcheck
from compactcheck.invariants import Facts
from compactcheck.observed.judging import check_pair
from compactcheck.observed.repair import repair
from compactcheck.render import render_markdown
from compactcheck.report.io import load_report
from compactcheck.report.model import Counterexample

GOLDEN = Path(__file__).parents[2] / "render" / "golden"


def read_facts(example: Counterexample) -> dict[str, Any]:
    """The facts the run judged a counterexample by, from its corpus entry."""
    assert example.corpus_file is not None
    facts: dict[str, Any] = json.loads(Path(example.corpus_file).read_text("utf-8"))["facts"]
    return facts


def test_every_messages_counterexample_shows_its_fix(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        "mutant:messages-keep-last-n", max_examples=20, seed=1, corpus_dir=tmp_path
    )
    examples = [r for r in report.targets[0].results if r.counterexample is not None]
    assert examples
    for result in examples:
        example = result.counterexample
        assert example is not None
        fix = example.fix
        assert fix is not None, result.invariant
        assert fix.changes
        assert fix.lawful or fix.note
        assert fix.size_answer == fix.changes[0].size_before
        assert fix.size_repaired == fix.changes[-1].size_after
    pairing = next(r for r in examples if r.invariant == "tool_pairing").counterexample
    assert pairing is not None
    assert pairing.fix is not None
    assert "tool_pairing" in {change.law for change in pairing.fix.changes}
    assert "**Fix:**" in render_markdown(report)


def test_a_lawful_fix_is_lawful_when_applied(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        "mutant:messages-cut-parallel-results", max_examples=30, seed=0, corpus_dir=tmp_path
    )
    [result] = [r for r in report.targets[0].results if r.invariant == "tool_pairing"]
    example = result.counterexample
    assert example is not None
    assert example.fix is not None
    assert example.fix.lawful
    assert isinstance(example.input, dict)
    assert isinstance(example.output, dict)
    before, after = example.input["messages"], example.output["messages"]
    assert not check_pair(before, after).holds
    mended = repair(before, after, Facts.model_validate(read_facts(example)))
    assert [c.what for c in mended.changes] == [c.what for c in example.fix.changes]
    assert check_pair(before, mended.tried, read_facts(example)).holds


def test_other_views_have_no_fix(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        "mutant:snapshot-drop-oldest-file", max_examples=20, seed=0, corpus_dir=tmp_path
    )
    examples = [r.counterexample for r in report.targets[0].results if r.counterexample]
    assert examples
    assert all(example.fix is None for example in examples)


def test_a_report_written_before_fixes_still_loads() -> None:
    old = load_report(GOLDEN / "hostile.json")
    assert "fix" not in (GOLDEN / "hostile.json").read_text(encoding="utf-8")
    assert all(
        r.counterexample.fix is None for t in old.targets for r in t.results if r.counterexample
    )
