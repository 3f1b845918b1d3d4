"""`compactcheck fuzz`: a time box that holds, failures counted once, files written as it goes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from compactcheck.campaign import Campaign, witness_signature
from compactcheck.corpus import corpus_files, load_entry
from compactcheck.report_io import load_report
from compactcheck.runner import RunConfig
from compactcheck.targets import resolve
from tests.signals import hear_ctrl_c


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


def test_interrupted_fuzz_leaves_a_report_marked_incomplete(tmp_path: Path) -> None:
    report = tmp_path / "campaign.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "fuzz",
            "reference-messages",
            "--max-time",
            "120",
            "--seed",
            "1",
            "--json",
            str(report),
            "--corpus",
            str(tmp_path / "corpus"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "120"},
        preexec_fn=hear_ctrl_c,
    )
    deadline = time.monotonic() + 60
    # The report appears after the first (small) iteration.
    while not report.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert report.exists(), process.communicate()
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, (stdout[-2000:], stderr[-2000:])
    data = json.loads(report.read_text())
    assert data["complete"] is False
    assert data["profile"] == "campaign"
    assert data["targets"][0]["results"][0]["examples"] > 0
    # Written atomically: no temporary files left beside it.
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")] == []
