"""`./dev` lets the Python processes of the suite keep their bytecode, whatever the shell says.

The script runs here in a copy of its own, its tools replaced by stubs that write down the
environment they were started with, so that no real check runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("python", "ruff", "mypy", "lint-imports", "uv")
_STUB = """#!/bin/sh
echo "$(basename "$0") ${PYTHONDONTWRITEBYTECODE-unset} $*" >> "$STUB_LOG"
"""


def _project(folder: Path) -> Path:
    """A folder holding `dev` and installed environments of stubs (so nothing is installed)."""
    shutil.copy(ROOT / "dev", folder / "dev")
    (folder / "pyproject.toml").write_text("")
    for venv in (".venv", ".venv-lowest"):
        bin = folder / venv / "bin"
        bin.mkdir(parents=True)
        for tool in TOOLS:
            (bin / tool).write_text(_STUB)
            (bin / tool).chmod(0o755)
        # Newer than pyproject.toml: `install` does nothing.
        (folder / venv / ".installed").touch()
    # The Node harness package counts as installed: no npm runs.
    node_modules = folder / "harnesses" / "node" / "node_modules"
    node_modules.mkdir(parents=True)
    (node_modules / ".installed").touch()
    return folder


def _run_dev(folder: Path, command: str) -> list[str]:
    log = folder / "stub.log"
    env = {
        "PATH": os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p).is_dir()),
        "PYTHONDONTWRITEBYTECODE": "1",
        "STUB_LOG": str(log),
    }
    done = subprocess.run(
        ["bash", str(folder / "dev"), command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return log.read_text().splitlines()


@pytest.mark.parametrize("command", ["test", "lowest", "equivalence"])
def test_the_commands_that_run_the_suite_let_python_write_bytecode(
    tmp_path: Path, command: str
) -> None:
    calls = _run_dev(_project(tmp_path), command)
    suite = [line for line in calls if " -m pytest " in line or " -m tests.equivalence" in line]
    assert suite, calls
    assert all(line.split()[1] == "unset" for line in suite), suite


def test_the_site_stage_alone_leaves_the_shell_s_setting_as_it_was(tmp_path: Path) -> None:
    """`./dev docs` runs no suite: the user's setting stands (the stubs can tell it from unset)."""
    calls = _run_dev(_project(tmp_path), "docs")
    assert calls
    assert all(line.split()[1] == "1" for line in calls), calls
