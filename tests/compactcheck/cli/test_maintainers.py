"""Our reference engine's own checks stand apart from a user's commands, in the help too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import compactcheck
from compactcheck.reference_engine.golden import DEFAULT_CORPUS


def test_the_help_lists_the_maintainers_commands_last_and_marked() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compactcheck", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    lines = [line.split() for line in done.stdout.splitlines() if line.startswith("    ")]
    listed = [words[0] for words in lines if words]
    assert listed[-2:] == ["golden", "rules"]
    assert all(words[1] == "(maintainers)" for words in lines if words[0] in ("golden", "rules"))
    assert all("(maintainers)" not in words for words in lines[:-2])


def test_the_golden_corpus_ships_beside_the_reference_engine() -> None:
    engine = Path(compactcheck.__file__).parent / "reference_engine"
    assert DEFAULT_CORPUS.resolve().is_relative_to(engine.resolve())
    assert len(list(DEFAULT_CORPUS.glob("*.json"))) >= 30
