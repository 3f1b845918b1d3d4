"""The console table says a note that several laws share once, under the table, not on each row."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from compactcheck.invariants import catalogue
from compactcheck.render import print_report
from compactcheck.report.model import InvariantResult, Report, TargetReport
from compactcheck.verdicts.counts import CALL_ANSWERED, answered_verdict, errored_clause

BUDGET_LAWS = {"budget_respected", "progress"}


def _report(results: list[InvariantResult], *, targets: int = 1) -> Report:
    return Report(
        toolkit_version="0",
        seed=0,
        profile="ci",
        max_examples=100,
        rounds=3,
        complete=True,
        started_at="2026-12-01T00:00:00Z",
        targets=[
            TargetReport(
                target=f"py:t{n}.py:compact", view="messages", format="openai-chat", results=results
            )
            for n in range(targets)
        ],
    )


def _printed(report: Report, width: int) -> str:
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=width))
    # Folded cells are joined again, so that a sentence is found whole wherever it wrapped.
    return re.sub(r"\s+", " ", re.sub(r"[│┃]", " ", buffer.getvalue()))


def _result(law_id: str, statement: str, **counts: int) -> InvariantResult:
    called = answered_verdict(law_id, declined=0, **counts)
    assert called is not None
    verdict, because = called
    return InvariantResult(
        invariant=law_id,
        statement=statement,
        verdict=verdict,
        because=because,
        examples=counts["examples"],
        exercised=counts["exercised"],
        compactions=counts["compactions"],
        unchanged=counts["unchanged"],
        errored=counts.get("errored", 0),
    )


def _never_compacted() -> list[InvariantResult]:
    return [
        _result(law.id, law.statement, compactions=0, unchanged=278, exercised=0, examples=200)
        for law in catalogue("messages", "openai-chat")
        if law.id not in BUDGET_LAWS
    ]


@pytest.mark.parametrize("width", [80, 200])
def test_a_target_that_never_compacted_says_why_once(width: int) -> None:
    results = _never_compacted()
    reason = next(r.because for r in results if r.verdict == "unknown")
    assert reason
    assert sum(r.because == reason for r in results) >= 10
    text = _printed(_report(results), width)
    assert text.count(reason) == 1
    assert text.count("see note 1") == sum(r.because == reason for r in results)
    assert f"note 1: {reason}" in text


@pytest.mark.parametrize("width", [80, 200])
def test_passes_beside_errored_calls_say_so_once_and_keep_their_own_counts(width: int) -> None:
    laws = [law for law in catalogue("messages", "openai-chat") if law.id not in BUDGET_LAWS]
    results = [
        _result(
            law.id,
            law.statement,
            compactions=21,
            unchanged=26,
            exercised=10 + index,
            examples=95,
            errored=64,
        )
        for index, law in enumerate(laws)
    ]
    passes = [r for r in results if r.verdict == "pass" and r.invariant != CALL_ANSWERED]
    assert len(passes) >= 2
    clause = errored_clause(64)
    assert all((r.because or "").endswith(clause) for r in passes)
    text = _printed(_report(results), width)
    assert text.count("64 call(s) errored and were not judged") == 1
    for result in passes:
        assert f"held on 21 compactions; {result.exercised} exercised it (see note 1)" in text


@pytest.mark.parametrize("width", [80, 200])
def test_notes_said_by_fewer_than_three_laws_stay_on_their_rows(width: int) -> None:
    laws = list(catalogue("messages", "openai-chat"))[:2]
    results = [
        InvariantResult(
            invariant=law.id,
            statement=law.statement,
            verdict="skipped",
            examples=95,
            exercised=0,
            because="not applicable: no budget was declared (--budget N)",
        )
        for law in laws
    ]
    text = _printed(_report(results), width)
    assert text.count("not applicable: no budget was declared (--budget N)") == 2
    assert "see note" not in text


def test_one_table_numbers_the_notes_of_every_target_in_turn() -> None:
    text = _printed(_report(_never_compacted(), targets=2), 200)
    assert "note 1: " in text
    assert "note 2: " in text
    assert "see note 1" in text
    assert "see note 2" in text
