"""A compactor can never take the run down: each hostile Python compactor's fault is a finding of
the call it broke, and the run finishes with its report.

By default a ``py:`` target runs in a worker process of its own, which survives every fault
below; with ``--in-process`` the faults Python can catch (an exit call, its own interrupt, a
hang) are still findings, and the report's header says that a crash would end the run.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from compactcheck.backends.harness_process import StderrRing
from compactcheck.render import FORMATS
from compactcheck.report.model import InvariantResult, TargetReport
from tests.compactcheck.backends.processes import isolated_processes
from tests.compactcheck.commandline import cli, load

HOSTILE = Path(__file__).parent / "hostile" / "compactors.py"


def _run(
    tmp_path: Path, name: str, *options: str
) -> tuple[subprocess.CompletedProcess[str], TargetReport]:
    done = cli(
        "run",
        f"py:{HOSTILE}:{name}",
        "--profile",
        "ci",
        "--max-examples",
        "10",
        "--invariants",
        "call_answered,tool_pairing",
        "--json",
        "r.json",
        # The compactors live in this repository: keep what the run finds out of it.
        "--corpus",
        "corpus",
        *options,
        cwd=tmp_path,
    )
    report = load(tmp_path / "r.json")
    assert report.complete, done.stderr[-2000:]
    [target] = report.targets
    return done, target


def _call_law(target: TargetReport) -> InvariantResult:
    [call] = [r for r in target.results if r.invariant == "call_answered"]
    return call


@pytest.mark.parametrize(
    ("name", "because", "options"),
    [
        ("exits", "SystemExit(3) raised by the compactor", ()),
        ("exits_hard", "worker process exited with code 7", ()),
        ("kills_itself", "worker process was killed by SIGKILL", ()),
        ("segfaults", "killed by SIGSEGV (a segmentation fault", ()),
        (
            "eats_memory",
            "MemoryError: the compactor ran out of memory under the worker's limit of 300 MB",
            ("--memory-limit", "300"),
        ),
        ("spins", "worker process did not answer seq", ("--timeout", "1")),
        ("interrupts", "KeyboardInterrupt raised by the compactor itself", ()),
        ("mutates", "mutated the message list it was handed, in place", ()),
    ],
)
def test_each_fault_of_an_isolated_compactor_is_a_finding_of_its_call(
    tmp_path: Path, name: str, because: str, options: tuple[str, ...]
) -> None:
    done, target = _run(tmp_path, name, *options)
    # A violation (exit 1): not the compactor's exit code, a signal, or the user's Ctrl-C (130).
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert target.isolation == "worker process"
    call = _call_law(target)
    assert call.verdict == "violation"
    assert call.because is not None
    assert because in call.because, call.because
    # Good answers were judged beside the fault: the worker was restarted after it.
    assert target.calls.get("compacted", 0) + target.calls.get("unchanged", 0) >= 2


def test_every_kind_of_failure_is_counted_not_only_the_witnessed_one(tmp_path: Path) -> None:
    # One witness per law shows one failure; the report still names each kind, with its count.
    _, target = _run(tmp_path, "fails_two_ways", "--max-examples", "30")
    kinds = list(target.failures)
    assert any(kind.startswith("SystemExit(3) raised by the compactor") for kind in kinds), kinds
    assert any(kind.startswith("ValueError: no summary for you") for kind in kinds), kinds
    assert sum(target.failures.values()) == target.calls["errored"]
    for kind in ("markdown", "html"):
        assert "failed calls: " in FORMATS[kind](load(tmp_path / "r.json"))


def test_a_segfault_names_where_it_happened(tmp_path: Path) -> None:
    _, target = _run(tmp_path, "segfaults")
    because = _call_law(target).because or ""
    assert "Fatal Python error: Segmentation fault, in string_at" in because, because


def test_printing_to_stdout_cannot_corrupt_the_protocol(tmp_path: Path) -> None:
    # print() and a raw write to fd 1 both go to stderr; neither is read as an answer.
    done, target = _run(tmp_path, "prints")
    assert done.returncode in (0, 3), done.stderr[-2000:]
    assert target.calls.get("errored", 0) == 0
    assert _call_law(target).verdict == "pass"
    assert "compacting" in target.stderr


@pytest.mark.parametrize(
    ("name", "because"),
    [
        ("exits", "SystemExit(3) raised by the compactor"),
        ("interrupts", "KeyboardInterrupt raised by the compactor itself"),
        ("mutates", "mutated the message list it was handed, in place"),
    ],
)
def test_in_process_an_exit_or_an_own_interrupt_is_a_finding_not_the_end(
    tmp_path: Path, name: str, because: str
) -> None:
    done, target = _run(tmp_path, name, "--in-process")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert target.isolation == "in-process"
    assert because in (_call_law(target).because or "")


def test_in_process_the_report_header_says_a_crash_ends_the_run(tmp_path: Path) -> None:
    done, _ = _run(tmp_path, "exits", "--in-process")
    report = load(tmp_path / "r.json")
    header = "a crash or hang of the compactor ends the run"
    assert header in done.stdout
    for kind in ("markdown", "html"):
        assert header in FORMATS[kind](report)


def test_in_process_a_hang_is_abandoned_and_the_process_still_exits(tmp_path: Path) -> None:
    # If the abandoned call's thread held the process open, this would never return (the
    # helper's own timeout would fail the test instead).
    done = cli(
        "run",
        f"py:{HOSTILE}:hangs",
        "--in-process",
        "--profile",
        "ci",
        "--max-examples",
        "2",
        "--timeout",
        "0.3",
        "--min-exercised",
        "0",
        "--corpus",
        "corpus",
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


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_spinning_worker_does_not_outlive_a_killed_run(tmp_path: Path) -> None:
    module = tmp_path / "spinner.py"
    module.write_text(HOSTILE.read_text())
    spec = f"{module}:spins"
    run = subprocess.Popen(
        [sys.executable, "-m", "compactcheck", "run", f"py:{spec}", "--timeout", "600"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not isolated_processes(spec) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert isolated_processes(spec), "the worker never started"
        # Let the compactor reach its endless loop, then kill compactcheck outright.
        time.sleep(3)
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 10
    while isolated_processes(spec) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not isolated_processes(spec)


def test_the_crash_location_is_the_crashing_threads_whichever_thread_faulthandler_lists_first() -> (
    None
):
    ring = StderrRing(4096)
    ring.feed(
        b"Fatal Python error: Segmentation fault\n\n"
        b"Thread 0x00007f (most recent call first):\n"
        b'  File "/x/isolated.py", line 66 in watch\n'
        b'  File "/x/threading.py", line 975 in run\n\n'
        b"Current thread 0x00007e (most recent call first):\n"
        b'  File "/x/ctypes/__init__.py", line 519 in string_at\n'
        b'  File "/x/mine.py", line 3 in compact\n'
    )
    assert ring.last_line() == (
        "Fatal Python error: Segmentation fault, in string_at at /x/ctypes/__init__.py:519"
    )
