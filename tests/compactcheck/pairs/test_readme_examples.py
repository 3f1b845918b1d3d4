"""Every example of the README's section on compactions you already have runs as written."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = re.compile(r"<!-- example: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)```", re.S)


def _examples() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {match["name"]: match["code"] for match in EXAMPLE.finditer(text)}


def test_the_readme_shows_each_way_in() -> None:
    assert set(_examples()) == {"check", "audit", "guard", "fuzz"}


@pytest.mark.parametrize("name", sorted(_examples()))
def test_a_readme_example_runs(name: str, tmp_path: Path) -> None:
    # As a user would run it: a fresh folder holding the shipped example transcripts.
    shutil.copytree(ROOT / "examples" / "transcripts", tmp_path / "examples" / "transcripts")
    done = subprocess.run(
        [sys.executable, "-c", _examples()[name]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
