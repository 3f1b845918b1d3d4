"""An in-process compactor's exit calls, own interrupts and hangs are findings of the call:
the run always finishes and writes its report."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compactcheck.commandline import cli, load

HOSTILE = Path(__file__).parent / "hostile" / "in_process.py"


@pytest.mark.parametrize(
    ("name", "because"),
    [
        ("exits", "SystemExit(3) raised by the compactor"),
        ("interrupts", "KeyboardInterrupt"),
    ],
)
def test_an_exit_or_an_own_interrupt_is_a_finding_not_the_end(
    tmp_path: Path, name: str, because: str
) -> None:
    done = cli(
        "run",
        f"py:{HOSTILE}:{name}",
        "--profile",
        "ci",
        "--max-examples",
        "10",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    # A violation (exit 1), not the compactor's exit code or the user's Ctrl-C (130).
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    report = load(tmp_path / "r.json")
    assert report.complete
    [target] = report.targets
    [call] = [r for r in target.results if r.invariant == "call_answered"]
    assert call.verdict == "violation"
    assert call.because is not None
    assert because in call.because


def test_a_hang_is_abandoned_and_the_process_still_exits(tmp_path: Path) -> None:
    # If the abandoned call's thread held the process open, this would never return (the
    # helper's own timeout would fail the test instead).
    done = cli(
        "run",
        f"py:{HOSTILE}:hangs",
        "--profile",
        "ci",
        "--max-examples",
        "2",
        "--timeout",
        "0.3",
        "--min-exercised",
        "0",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    [target] = load(tmp_path / "r.json").targets
    assert target.calls.get("timed out")
    verdicts = {r.invariant: r.verdict for r in target.results}
    # Every call timed out: nothing was judged, and the call law says so.
    assert verdicts.pop("call_answered") in ("errored", "unknown")
    assert set(verdicts.values()) <= {"unknown", "skipped"}


def test_printing_to_stdout_does_not_disturb_the_run(tmp_path: Path) -> None:
    done = cli(
        "run",
        f"py:{HOSTILE}:prints",
        "--profile",
        "ci",
        "--max-examples",
        "5",
        "--invariants",
        "tool_pairing",
        "--json",
        "r.json",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 3), done.stderr[-2000:]
    [target] = load(tmp_path / "r.json").targets
    assert target.calls.get("errored", 0) == 0
