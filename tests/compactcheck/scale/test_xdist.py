"""The pytest plugin under pytest-xdist: the same results, and one merged report, with -n 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xdist", reason="pytest-xdist is not installed (dev extra)")

TESTS = """
import pytest


@pytest.mark.compactcheck("mutant:messages-drop-user-turns", view="messages")
def test_mutant(compactcheck_law):
    compactcheck_law.check()


@pytest.mark.compactcheck("reference-messages", view="messages")
def test_reference(compactcheck_law):
    compactcheck_law.check()
"""


def _session(folder: Path, workers: str) -> tuple[dict[str, str], dict[str, Any]]:
    """Run the selection; the outcome of every test id, and the JSON report minus timings."""
    folder.mkdir()
    (folder / "test_selection.py").write_text(TESTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            workers,
            "-p",
            "no:cacheprovider",
            "-q",
            "--compactcheck-max-examples",
            "10",
            "--compactcheck-shards",
            "2",
            "--compactcheck-invariants",
            "user_turn_present,non_empty",
            "--compactcheck-json",
            "report.json",
            "--junitxml",
            "junit.xml",
            "test_selection.py",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=False,
    )
    # 1: the mutant's tests fail, as they must.
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(folder / "junit.xml").iter("testcase"):
        verdict = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                verdict = child.tag
        outcomes[case.attrib["name"]] = verdict
    report = json.loads((folder / "report.json").read_text())
    corpus = folder / ".compactcheck" / "corpus"
    # The shards' own corpora were merged into the corpus and removed; nothing overwrote.
    assert not (corpus / ".shards").exists()
    named = {
        example["corpus_file"]
        for target in report["targets"]
        for result in target["results"]
        if result["counterexample"]
        # Each way a law broke in has its own entry.
        for example in (result["counterexample"], *result["other_ways"])
    }
    assert named
    assert all(Path(name).parent == corpus and Path(name).is_file() for name in named)
    # Each shard keeps the witness it found: the corpus holds every distinct one (named by its
    # content), the report the best of them per law.
    kept = {path.name for path in corpus.glob("*.json")}
    assert {Path(name).name for name in named} <= kept
    broken = {
        f"{target['target']}--{result['invariant']}"
        for target in report["targets"]
        for result in target["results"]
        if result["verdict"] == "violation"
    }
    for file_name in kept:
        entry = json.loads((corpus / file_name).read_text())
        assert f"{entry['target']}--{entry['invariant']}" in broken, file_name
    for target in report["targets"]:
        target.pop("seconds")
        target.pop("stderr")
        for result in target["results"]:
            if result["counterexample"]:
                # Each session has its own folder; the entry's name is what must agree.
                name = Path(result["counterexample"]["corpus_file"]).relative_to(folder)
                result["counterexample"]["corpus_file"] = str(name)
    return outcomes, report


def test_two_workers_and_none_give_the_same_results_and_report(tmp_path: Path) -> None:
    serial_outcomes, serial_report = _session(tmp_path / "serial", "0")
    parallel_outcomes, parallel_report = _session(tmp_path / "parallel", "2")
    assert parallel_outcomes == serial_outcomes
    # Stable ids: target x view x invariant x shard, twelve of them (the call law included).
    assert len(serial_outcomes) == 12
    assert "test_mutant[mutant:messages-drop-user-turns-messages-user_turn_present-shard2of2]" in (
        serial_outcomes
    )
    assert {
        v for k, v in serial_outcomes.items() if "user_turn_present" in k and "mutant" in k
    } == {"failure"}
    # One report, merged on the controller from both workers: the same as the lone process's.
    assert parallel_report == serial_report
    by_target = {t["target"]: t for t in serial_report["targets"]}
    assert set(by_target) == {"mutant:messages-drop-user-turns", "reference-messages"}
    results = {r["invariant"]: r for r in by_target["mutant:messages-drop-user-turns"]["results"]}
    assert results["user_turn_present"]["verdict"] == "violation"
    # Both shards' budgets are in the merged counts.
    assert results["non_empty"]["examples"] == 10
