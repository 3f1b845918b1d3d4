"""The CLI as a user runs it: a subprocess with a clean environment, and its JSON report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema

from compactcheck.report.model import Report
from compactcheck.schemas import shipped

REPORT_SCHEMA = jsonschema.Draft202012Validator(shipped("report"))


def cli(*arguments: str, cwd: Path, columns: int = 160) -> subprocess.CompletedProcess[str]:
    """`python -m compactcheck ARGUMENTS` in ``cwd``, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", *arguments],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
        env={"COLUMNS": str(columns), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
        check=False,
    )


def load(path: Path) -> Report:
    """A JSON report, checked against the shipped schema first."""
    data = json.loads(path.read_text())
    REPORT_SCHEMA.validate(data)
    return Report.model_validate(data)


def pytest_in(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`python -m pytest -p no:cacheprovider -q ARGUMENTS` in ``cwd``, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def failure_reports(stdout: str) -> str:
    """A pytest run's output up to its short test summary.

    Where $CI is set, pytest writes each failure's whole message again in that summary (it
    shortens it to one line elsewhere): a line counted in the output would be counted twice.
    """
    return stdout.split(" short test summary info ", 1)[0]
