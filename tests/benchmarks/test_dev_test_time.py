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
        Stage(dev_test_time.COMPARISON, 200.0, 0, "Success"),
        Stage("mypy, no cache", 120.0, 0, "Success"),
        Stage("mypy, cached", 6.0, 0, "Success"),
        Stage("lint-imports", 1.0, 0, "Contracts: 3 kept, 0 broken."),
        Stage("pytest -n auto", 514.0, 1, "1 failed, 1309 passed"),
    ]
    monkeypatch.setattr(dev_test_time, "stages", lambda: timed)
    dev_test_time.suite_time()
    out = capsys.readouterr().out
    # 3 + 2 + 1 + 514 = 520 s, with 6 s of mypy: 8.8 min; with 120 s: 10.7 min (the 200 s of
    # mypy in one process are a comparison, in neither total).
    assert "total with mypy cached: 8.8 min; goal at most 10 min: met" in out
    assert "total with mypy no cache: 10.7 min; goal at most 10 min: NOT MET" in out
    assert "two workers against one process: 0.60x the time" in out
    assert "a stage failed: pytest -n auto" in out


def test_the_stages_run_mypy_and_pytest_as_dev_test_does() -> None:
    """The benchmark times the commands of `./dev test`, not others of the same name."""
    dev = (dev_test_time.ROOT / "dev").read_text()
    stage = dev[dev.index("\n  test)") : dev.index(";;", dev.index("\n  test)"))]
    assert f'"$VENV/bin/mypy" {" ".join(dev_test_time.MYPY_WORKERS)}\n' in stage
    assert f'"$VENV/bin/python" {" ".join(dev_test_time.PYTEST)} "$@"\n' in stage


def test_a_stage_runs_with_bytecode_written_as_dev_test_runs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    script = "import sys; print(sys.flags.dont_write_bytecode)"
    assert _timed("script", [sys.executable, "-c", script]).tail == "0"
