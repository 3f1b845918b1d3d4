"""The suite section of the benchmarks: stages timed as `./dev test` runs them, totals judged."""

from __future__ import annotations

import sys

import pytest

from benchmarks import dev_test_time
from benchmarks.dev_test_time import Stage, _timed


def test_a_stage_keeps_its_exit_code_and_last_line() -> None:
    script = "print('one'); print('two'); raise SystemExit(3)"
    stage = _timed("script", [sys.executable, "-c", script])
    assert (stage.exit_code, stage.tail) == (3, "two")
    assert stage.seconds > 0


def test_the_totals_count_mypy_once_each_way_and_name_a_failed_stage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    timed = [
        Stage("ruff check", 3.0, 0, "All checks passed!"),
        Stage("ruff format --check", 2.0, 0, "384 files already formatted"),
        Stage("mypy, no cache", 120.0, 0, "Success"),
        Stage("mypy, cached", 6.0, 0, "Success"),
        Stage("pytest -n auto", 619.0, 1, "1 failed, 1309 passed"),
    ]
    monkeypatch.setattr(dev_test_time, "stages", lambda: timed)
    dev_test_time.suite_time()
    out = capsys.readouterr().out
    # 3 + 2 + 619 = 624 s, with 6 s of mypy: 10.5 min; with 120 s: 12.4 min.
    assert "total with mypy cached: 10.5 min; goal under 12 min: met" in out
    assert "total with mypy no cache: 12.4 min; goal under 12 min: NOT MET" in out
    assert "a stage failed: pytest -n auto" in out
