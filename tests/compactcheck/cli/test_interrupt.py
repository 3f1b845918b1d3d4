"""Interruptions with real signals on a real process: the partial report and corpus survive."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.signals import Reaper, hear_ctrl_c


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_writes_a_partial_report(
    signum: int, tmp_path: Path, reaper: Reaper
) -> None:
    # A budget far beyond what the test waits for: the signal always lands mid-run.
    process = _start_run(reaper, tmp_path)
    # Wait until the first target has left its failure in the corpus, then interrupt.
    _wait_for_a_corpus_entry(process, tmp_path)
    time.sleep(1.0)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
    assert "Traceback" not in stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["complete"] is False
    # The target being fuzzed when the signal came is reported with what it had found.
    [partial] = report["targets"]
    assert partial["target"] == "mutant:messages-cut-parallel-results"
    assert any("interrupted" in error for error in partial["errors"])
    verdicts = {r["invariant"]: r["verdict"] for r in partial["results"]}
    assert verdicts["tool_pairing"] == "violation"
    # No temporary files are left half-written beside the outputs.
    assert not [p for p in tmp_path.rglob(".*.tmp")]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_on_workers_stops_them_and_writes_its_report(
    signum: int, tmp_path: Path, reaper: Reaper
) -> None:
    process = _start_run(reaper, tmp_path, "--workers", "2")
    _wait_for_a_corpus_entry(process, tmp_path)
    signalled = time.monotonic()
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    # Running jobs are interrupted, not awaited (200,000 histories would take hours).
    assert time.monotonic() - signalled < 30
    assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
    assert "Traceback" not in stderr
    assert json.loads((tmp_path / "r.json").read_text())["complete"] is False
    # The failure found before the signal is still in the corpus.
    assert list((tmp_path / "corpus").glob("*.json"))
    # No worker outlives the run: every process started there (the workers and their fork
    # server run in the run's folder) is gone.
    time.sleep(1.0)
    assert _running_in(tmp_path) == []


def test_ctrl_c_pressed_again_ends_the_run_naming_each_report_it_did_not_write(
    tmp_path: Path, reaper: Reaper
) -> None:
    # Three presses 50 ms apart: the first ends the search, the others land while the partial
    # reports are written (or before), and end the run at once.
    process = _start_run(reaper, tmp_path, "--html", "r.html")
    _wait_for_a_corpus_entry(process, tmp_path)
    time.sleep(1.0)
    for _ in range(3):
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    # Each report asked for is on disk, or named as not written, in one line.
    said = [line for line in stderr.splitlines() if "not written" in line]
    assert len(said) <= 1, said
    for name, file in (("json", "r.json"), ("html", "r.html")):
        path = tmp_path / file
        assert path.exists() or f"the {name} report {path}" in "".join(said), (name, stderr)
    if (tmp_path / "r.json").exists():
        assert json.loads((tmp_path / "r.json").read_text())["complete"] is False
    assert not [p for p in tmp_path.rglob(".*.tmp")]


def _running_in(folder: Path) -> list[int]:
    """Live processes whose working folder is ``folder`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == folder:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _start_run(reaper: Reaper, folder: Path, *extra: str) -> subprocess.Popen[str]:
    """A real `compactcheck run` of a mutant and the reference, with a budget far beyond what
    a test waits for (the signal always lands mid-run), that hears Ctrl-C."""
    command = [sys.executable, "-m", "compactcheck", "run"]
    targets = ["mutant:messages-cut-parallel-results", "reference-messages"]
    options = ["--profile", "ci", "--max-examples", "200000", "--no-shrink"]
    outputs = ["--json", "r.json", "--corpus", "corpus"]
    return reaper(
        subprocess.Popen(
            [*command, *targets, *extra, *options, *outputs],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(folder), "COLUMNS": "120"},
            preexec_fn=hear_ctrl_c,
        )
    )


def _wait_for_a_corpus_entry(process: subprocess.Popen[str], folder: Path) -> None:
    """Until the first failure is in the corpus (the run is well under way)."""
    deadline = time.monotonic() + 240
    while not list((folder / "corpus").glob("*.json")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no corpus entry appeared"
        time.sleep(0.2)
