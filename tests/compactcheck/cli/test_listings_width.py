"""`compactcheck invariants` and `targets` on an 80-column terminal: names are never broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.base.call_law import call_law
from compactcheck.invariants import VIEWS, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.targets.registry import builtin_targets
from tests.compactcheck.commandline import cli


def _cells(stdout: str) -> set[str]:
    """The text of every cell of every table line."""
    return {
        cell.strip()
        for line in stdout.splitlines()
        if line.startswith("│")
        for cell in line.split("│")[1:-1]
    }


@pytest.mark.parametrize("columns", [80, 100])
def test_every_law_id_stands_whole_on_one_line(tmp_path: Path, columns: int) -> None:
    done = cli("invariants", cwd=tmp_path, columns=columns)
    assert done.returncode == 0, done.stderr
    ids = {law.id for law in catalogue(None, ALL_FORMATS)} | {call_law(v).id for v in VIEWS}
    assert ids <= _cells(done.stdout)
    assert max(len(line) for line in done.stdout.splitlines()) <= columns


@pytest.mark.parametrize("columns", [80, 100])
def test_every_target_name_stands_whole_on_one_line(tmp_path: Path, columns: int) -> None:
    done = cli("targets", cwd=tmp_path, columns=columns)
    assert done.returncode == 0, done.stderr
    assert set(builtin_targets()) <= _cells(done.stdout)
    assert max(len(line) for line in done.stdout.splitlines()) <= columns
    # Nothing is cut short either: a description folds.
    assert "…" not in done.stdout


def test_a_wide_terminal_keeps_one_table(tmp_path: Path) -> None:
    done = cli("invariants", cwd=tmp_path, columns=160)
    assert done.stdout.count("Invariant catalogue") == 1
    assert "acceptance_criteria_preserved" in done.stdout
