"""The corpus goes where the user says, by default into the project being tested, never into
whatever folder the run happened to start in."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from compactcheck.corpus.location import LocationError, for_targets, project_root
from tests.compactcheck.commandline import cli

COMPACTOR = """
def compact(messages):
    # Drops every tool result: tool_pairing breaks on the first history with a tool call.
    return [m for m in messages if m.get("role") != "tool"]
"""


def _project(root: Path, marker: str = "pyproject.toml") -> Path:
    (root / "src").mkdir(parents=True)
    (root / marker).write_text("")
    module = root / "src" / "mine.py"
    module.write_text(COMPACTOR)
    return module


def _run(module: Path, cwd: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """A short run that breaks tool_pairing on the compactor above."""
    return cli(
        "run",
        f"py:{module}:compact",
        "--profile",
        "ci",
        "--max-examples",
        "20",
        "--invariants",
        "tool_pairing",
        *options,
        cwd=cwd,
    )


def test_a_run_started_elsewhere_writes_into_the_tested_project(tmp_path: Path) -> None:
    module = _project(tmp_path / "agent")
    elsewhere = tmp_path / "other-checkout"
    elsewhere.mkdir()
    (elsewhere / ".git").mkdir()
    done = _run(module, elsewhere)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    written = list((tmp_path / "agent" / ".compactcheck" / "corpus").glob("*.json"))
    assert written, done.stdout[-2000:]
    assert not (elsewhere / ".compactcheck").exists()
    # The run says where it writes, and why there.
    said = done.stdout.replace("\n", "")
    assert str(tmp_path / "agent" / ".compactcheck" / "corpus") in said
    assert "the project of py:" in said


def test_the_corpus_goes_where_the_user_says(tmp_path: Path) -> None:
    module = _project(tmp_path / "agent")
    done = _run(module, tmp_path, "--corpus", "found")
    assert done.returncode == 1, done.stdout[-2000:]
    assert list((tmp_path / "found").glob("*.json"))
    assert not (tmp_path / "agent" / ".compactcheck").exists()


def test_a_target_without_a_file_uses_the_project_the_run_started_in(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text("{}")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    state = for_targets(["reference-messages"], cwd=deep)
    assert state.path == tmp_path.resolve() / ".compactcheck"
    assert state.why == "the project the run was started in"


def test_no_project_anywhere_falls_back_to_the_working_directory_and_says_so(
    tmp_path: Path,
) -> None:
    if project_root(tmp_path) is not None:
        pytest.skip("the temporary folder sits inside a project on this machine")
    state = for_targets(["reference-messages"], cwd=tmp_path)
    assert state.path == tmp_path.resolve() / ".compactcheck"
    assert "no project folder" in state.why


def test_targets_of_two_projects_need_a_named_corpus(tmp_path: Path) -> None:
    first = _project(tmp_path / "one")
    second = _project(tmp_path / "two", ".git")
    with pytest.raises(LocationError, match="different projects"):
        for_targets([f"py:{first}:compact", f"py:{second}:compact"], cwd=tmp_path)
    done = cli(
        "run", f"py:{first}:compact", f"py:{second}:compact", "--max-examples", "5", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "--corpus PATH" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_harness_script_belongs_to_its_project(tmp_path: Path) -> None:
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "package.json").write_text("{}")
    (tmp_path / "harness" / "harness.js").write_text("")
    state = for_targets(["cmd:node harness/harness.js"], cwd=tmp_path)
    assert state.path == (tmp_path / "harness").resolve() / ".compactcheck"
