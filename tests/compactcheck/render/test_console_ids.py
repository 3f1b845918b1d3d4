"""A report's console table never breaks a law id or a target name, at any width."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from compactcheck.invariants import catalogue
from compactcheck.render import print_report
from compactcheck.report.model import InvariantResult, Report, TargetReport

TARGET = "mutant:anthropic-keep-last-n"


def _report() -> Report:
    results = [
        InvariantResult(
            invariant=law.id,
            statement=law.statement,
            verdict="pass",
            examples=100,
            exercised=100,
            because="held on 100 compactions; 100 exercised it",
        )
        for law in catalogue("messages", "anthropic")
    ]
    target = TargetReport(target=TARGET, view="messages", format="anthropic", results=results)
    return Report(
        toolkit_version="0",
        seed=0,
        profile="ci",
        max_examples=100,
        rounds=3,
        complete=True,
        started_at="2026-12-01T00:00:00Z",
        targets=[target],
    )


@pytest.mark.parametrize("width", [80, 100, 120, 130, 150, 200])
def test_every_law_id_and_the_target_stand_whole(width: int) -> None:
    report = _report()
    buffer = io.StringIO()
    print_report(report, Console(file=buffer, width=width))
    lines = buffer.getvalue().splitlines()
    cells = {cell.strip() for line in lines if line.startswith("│") for cell in line.split("│")}
    assert {result.invariant for result in report.targets[0].results} <= cells
    assert any(TARGET in line for line in lines)
    assert max(len(line) for line in lines) <= width
