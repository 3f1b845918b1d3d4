"""`compactcheck init --node` from a non-editable install: the project it writes runs with a real
Node process (a wheel has no harnesses/ folder), and names its harness the same on every
checkout (no absolute path in test ids or corpus entries)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.compactcheck.test_install import _run, installed

__all__ = ["installed"]  # the fixture, imported for this module's tests

HARNESS = "cmd:node compactcheck-harness.mjs"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js on PATH")
def test_init_node_from_an_install_runs_and_names_its_harness_relatively(
    installed: Path, tmp_path: Path
) -> None:
    assert not (installed / "harnesses").exists()
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    done = _run([sys.executable, "-m", "compactcheck", "init", "--node"], project, installed)
    assert done.returncode == 0, done.stdout + done.stderr
    harness = (project / "compactcheck-harness.mjs").read_text()
    assert 'from "./compactcheck-protocol.mjs"' in harness
    assert (project / "compactcheck-protocol.mjs").is_file()

    options = ["-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", "-v"]
    options += ["--compactcheck-max-examples", "5", "--compactcheck-invariants", "goal_preserved"]
    tests = _run([sys.executable, "-m", "pytest", "tests", *options], project, installed)
    output = tests.stdout + tests.stderr
    # The scaffolded trimmer keeps the last six messages and loses the goal: a verdict that
    # only a harness that started and answered can reach (exit 1: a law failed).
    assert tests.returncode == 1, output[-3000:]
    assert f"[{HARNESS}-messages-goal_preserved]" in tests.stdout, output[-3000:]
    ids = [line for line in tests.stdout.splitlines() if "::test_compactor_conformance[" in line]
    assert ids
    assert not [line for line in ids if str(tmp_path) in line], ids
    entries = list((project / ".compactcheck" / "corpus").glob("*.json"))
    assert entries
    assert {json.loads(entry.read_text())["target"] for entry in entries} == {HARNESS}
