"""`compactcheck fuzz`: a time box that holds, failures counted once, files written as it goes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from compactcheck.corpus.entry import corpus_files, load_entry
from compactcheck.engine.campaign import Campaign, witness_signature
from compactcheck.engine.config import RunConfig
from compactcheck.report.io import load_report
from compactcheck.targets.registry import all_mutants, resolve
from tests.signals import Reaper, hear_ctrl_c


def test_witness_signature_ignores_ids_and_text_but_not_structure() -> None:
    one = [{"role": "tool", "tool_call_id": "call_1", "content": "ok"}]
    other = [{"role": "tool", "tool_call_id": "call_9", "content": "different text"}]
    shaped = [{"role": "assistant", "content": "ok"}]
    assert witness_signature("t", "law", one) == witness_signature("t", "law", other)
    assert witness_signature("t", "law", one) != witness_signature("t", "law", shaped)
    assert witness_signature("t", "law", one) != witness_signature("t", "other", one)


def test_campaign_counts_each_failure_once_and_stops_on_time(tmp_path: Path) -> None:
    target = resolve("mutant:messages-drop-user-turns")
    config = RunConfig(
        seed=5,
        max_examples=40,
        profile="campaign",
        include=("user_turn_present", "non_empty"),
        corpus_dir=tmp_path / "corpus",
    )
    report_path = tmp_path / "campaign.json"
    campaign = Campaign(target, ["messages"], config, max_time=6.0, report_path=report_path)
    started = time.monotonic()
    try:
        final = campaign.run()
    finally:
        target.close()
    elapsed = time.monotonic() - started
    # A box of 6 s; one iteration's shrink may finish after the bell, bounded by the box itself.
    assert elapsed < 6.0 + 6.0, elapsed
    assert campaign.iterations >= 2
    assert final.complete
    assert load_report(report_path) == final
    # The same bug on many histories: found in (nearly) every iteration, counted once.
    distinct = list(campaign.failures.values())
    assert distinct, "the mutant was never caught"
    assert sum(failure.seen for failure in distinct) > len(distinct)
    assert len({(f.invariant, f.signature) for f in distinct}) == len(distinct)
    files = corpus_files(tmp_path / "corpus")
    assert sorted(files) == sorted(failure.path for failure in distinct)
    for path in files:
        entry = load_entry(path)
        assert entry["invariant"] == "user_turn_present"
    [result] = [r for r in final.targets[0].results if r.invariant == "user_turn_present"]
    assert result.verdict == "violation"
    assert result.examples == campaign.examples
    assert "distinct failure" in (result.because or "")
    [quiet] = [r for r in final.targets[0].results if r.invariant == "non_empty"]
    assert quiet.verdict == "pass"


def test_interrupted_fuzz_leaves_a_report_marked_incomplete(tmp_path: Path, reaper: Reaper) -> None:
    report = tmp_path / "campaign.json"
    process = _start_fuzz(
        reaper,
        report,
        "reference-messages",
        "--max-time",
        "120",
    )
    # The report appears after the first (small) iteration.
    _wait_for_the_first_iteration(process, report, 60)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
    data = json.loads(report.read_text())
    assert data["complete"] is False
    assert data["profile"] == "campaign"
    assert data["targets"][0]["results"][0]["examples"] > 0
    # Written atomically: no temporary files left beside it.
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")] == []


def _wait_for_the_first_iteration(
    process: subprocess.Popen[str], report: Path, seconds: float
) -> None:
    """Until the report is on disk (the campaign writes it after each iteration)."""
    deadline = time.monotonic() + seconds
    while not report.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert report.exists(), process.communicate()


def _fuzz(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "compactcheck", "fuzz", *arguments]


def _start_fuzz(reaper: Reaper, report: Path, *arguments: str) -> subprocess.Popen[str]:
    """A real `compactcheck fuzz` process (seed 1, its report and corpus beside each other)
    that hears Ctrl-C, killed if the test leaves it running."""
    folder = report.parent
    return reaper(
        subprocess.Popen(
            _fuzz(
                *arguments, "--seed", "1", "--json", str(report), "--corpus", str(folder / "corpus")
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=folder,
            env={**os.environ, "COLUMNS": "120"},
            preexec_fn=hear_ctrl_c,
        )
    )


def test_fuzz_on_workers_breaks_the_mutant_within_the_time_box(tmp_path: Path) -> None:
    mutant = all_mutants()["messages-cut-parallel-results"]
    max_time = 10.0
    started = time.monotonic()
    done = subprocess.run(
        _fuzz(
            f"mutant:{mutant.name}",
            "--workers",
            "2",
            "--max-time",
            f"{max_time:g}",
            "--seed",
            "3",
            "--json",
            "campaign.json",
            "--corpus",
            "corpus",
        ),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "250"},
        timeout=300,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 1, (done.stdout[-2000:], done.stderr[-2000:])
    assert "workers 2" in done.stdout.splitlines()[0]
    # The box is used, not cut short; the slack covers the interpreter's and the pool's start,
    # the shrink and replays of the last iteration, and a loaded 2-core machine.
    assert max_time <= elapsed < 2 * max_time + 10, elapsed
    summary = re.search(r"(\d+) iteration\(s\), (\d+) histories, (\d+) distinct", done.stdout)
    assert summary is not None, done.stdout[-2000:]
    iterations, histories, distinct = (int(group) for group in summary.groups())
    assert iterations >= 1
    assert histories > 0
    report = load_report(tmp_path / "campaign.json")
    assert report.complete
    [target] = report.targets
    # The workers' shards add up: every law was judged on every history they ran.
    assert {result.examples for result in target.results} == {histories}
    [broken] = [result for result in target.results if result.invariant == mutant.targets]
    assert broken.verdict == "violation"
    assert broken.counterexample is not None
    assert (tmp_path / str(broken.counterexample.corpus_file)).is_file()
    # One corpus entry per distinct failure, named by signature; no superseded entry is left.
    listed = re.findall(r"^ +(\S+) \[[0-9a-f]{12}\] seen \d+x: (.+)$", done.stdout, re.M)
    assert len(listed) == distinct >= 1
    files = corpus_files(tmp_path / "corpus")
    assert sorted(file.name for file in files) == sorted(Path(path).name for _, path in listed)
    assert {load_entry(file)["invariant"] for file in files} == {mutant.targets}
    assert not list(tmp_path.rglob(".*.tmp"))


def test_fuzz_needs_at_least_one_worker(tmp_path: Path) -> None:
    for bad in ("0", "-1", "two"):
        done = subprocess.run(
            _fuzz("reference-messages", "--max-time", "5", "--workers", bad),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done
        [line] = done.stderr.strip().splitlines()
        assert "--workers" in line
        assert not (tmp_path / ".compactcheck").exists()


@dataclass(frozen=True)
class _Seen:
    """One process as /proc shows it; ``started`` tells it from a later one given its pid."""

    pid: int
    parent: int
    state: str
    started: int


def _seen(pid: int) -> _Seen | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return _Seen(pid, parent=int(fields[1]), state=fields[0], started=int(fields[19]))


def _descendants(root: int) -> list[_Seen]:
    table = [
        seen
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and (seen := _seen(int(entry.name)))
    ]
    found: list[_Seen] = []
    parents = {root}
    while parents:
        children = [seen for seen in table if seen.parent in parents and seen not in found]
        found += children
        parents = {seen.pid for seen in children}
    return found


def _running(process: _Seen) -> bool:
    now = _seen(process.pid)
    # A zombie has ended (a container's init may never reap it); another start is another process.
    return now is not None and now.started == process.started and now.state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"]
)
def test_interrupted_fuzz_on_workers_leaves_an_incomplete_report_and_no_worker(
    signum: int, tmp_path: Path, reaper: Reaper
) -> None:
    report = tmp_path / "campaign.json"
    process = _start_fuzz(
        reaper,
        report,
        "reference-messages",
        "--workers",
        "2",
        # The second iteration is sized to run for a minute or more: the signal lands in it.
        "--max-time",
        "3600",
        "--max-examples",
        "100000",
    )
    # The report appears after the first iteration, by when the pool's workers are running.
    _wait_for_the_first_iteration(process, report, 90)
    below = _descendants(process.pid)
    # The fork server's children: the workers.
    workers = [seen for seen in below if seen.parent != process.pid]
    assert len(workers) >= 2, below
    # Only the parent hears the signal: it stops its workers, or, killed, they stop by themselves.
    signalled = time.monotonic()
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    # Running shards are interrupted, not awaited (a grace of 5 s, then they are killed).
    assert time.monotonic() - signalled < 15
    if signum == signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
        assert "interrupted" in stdout
    data = json.loads(report.read_text())
    assert data["complete"] is False
    assert data["targets"][0]["results"][0]["examples"] > 0
    # No worker outlives the campaign (each gives up within a few seconds of its parent).
    gone_by = time.monotonic() + 20
    while any(_running(seen) for seen in below) and time.monotonic() < gone_by:
        time.sleep(0.2)
    assert not [seen for seen in below if _running(seen)]
    assert not list(tmp_path.rglob(".*.tmp"))


def test_fuzz_whose_report_cannot_be_written_shows_the_violations_and_says_so(
    tmp_path: Path,
) -> None:
    (tmp_path / "blocked").write_text("a file, not a folder")
    done = subprocess.run(
        _fuzz(
            "mutant:messages-drop-user-turns",
            "--invariants",
            "user_turn_present,non_empty",
            "--max-time",
            "3",
            "--seed",
            "1",
            "--json",
            "blocked/campaign.json",
            "--corpus",
            "corpus",
        ),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    # A law was broken and an output could not be written: both said by the exit code.
    assert done.returncode == 5, out[-3000:]
    assert "Traceback" not in out
    assert "violation 1: user_turn_present" in done.stdout
    unwritten = [line for line in done.stdout.splitlines() if line.startswith("not written: ")]
    assert len(unwritten) == 1, done.stdout[-3000:]
    assert "blocked/campaign.json" in unwritten[0]
    assert corpus_files(tmp_path / "corpus")


def test_a_campaign_counts_each_way_of_a_law_as_a_failure_with_its_entry(tmp_path: Path) -> None:
    from tests.compactcheck.engine.test_ways import TWO_WAYS

    (tmp_path / "two.py").write_text(TWO_WAYS)
    target = resolve(f"py:{tmp_path / 'two.py'}:compact")
    config = RunConfig(
        seed=2,
        max_examples=20,
        profile="campaign",
        include=("constraints_preserved",),
        corpus_dir=tmp_path / "corpus",
    )
    campaign = Campaign(target, ["messages"], config, max_time=8.0)
    try:
        final = campaign.run()
    finally:
        target.close()
    # Both ways (a system prompt demoted, one dropped) are distinct failures, each with the
    # entry its own witness was written to; the report shows them in the law's order.
    distinct = list(campaign.failures.values())
    ways = {f.result.counterexample.way for f in distinct if f.result.counterexample}
    assert ways == {"system missing", "system demoted"}
    assert sorted(corpus_files(tmp_path / "corpus")) == sorted({f.path for f in distinct})
    for failure in distinct:
        assert load_entry(failure.path)["way"] == failure.result.counterexample.way  # type: ignore[union-attr]
    [result] = [r for r in final.targets[0].results if r.invariant == "constraints_preserved"]
    assert result.counterexample is not None
    assert [result.counterexample.way, *(e.way for e in result.other_ways)] == [
        "system missing",
        "system demoted",
    ]
    assert f"{len(distinct)} distinct failure(s)" in (result.because or "")
