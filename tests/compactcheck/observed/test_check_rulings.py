"""`compactcheck check` prints a ruling per fact, and the laws fail on what the rulings say."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_BEFORE = [
    {
        "role": "system",
        "content": "You are a coding agent.\n- Do not touch the public API\n- Use Python 3.11\n"
        "- Keep spending under $500\n- Never push to main\n- Use only PostgreSQL for storage",
    },
    {"role": "user", "content": "Fix the login bug in auth/login.py"},
    {"role": "assistant", "content": "Looking."},
    {"role": "user", "content": "Update: Use Python 3.12 now."},
    {"role": "assistant", "content": "ok"},
    {"role": "user", "content": "continue"},
]
_SUMMARY = (
    "Goal: fix the login bug in auth/login.py. The public API: feel free to touch it. Bumping "
    "the timeout did not help. Python 3.11 no longer applies: the project now targets Python "
    "3.12. Keep spending under $5000. Avoid pushing to main if possible. Use PostgreSQL for "
    "storage.\nConstraint: Use MySQL 8."
)
_AFTER = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": _SUMMARY},
    {"role": "user", "content": "continue"},
]
_FACTS = {
    "goal": "Fix the login bug in auth/login.py",
    "constraints": [
        "Do not touch the public API",
        "Use Python 3.12",
        "Keep spending under $500",
        "Never push to main",
        "Use only PostgreSQL for storage",
    ],
    "superseded_constraints": ["Use Python 3.11"],
}


_FACTS_FILE = ("--facts", "facts.json")


def test_check_prints_a_ruling_per_fact(tmp_path: Path) -> None:
    """Issue 46: this pinned a violation of ``constraints_not_weakened``; a hedge or a dropped
    "only" is no mechanical evidence, so both weakenings are now printed for review instead,
    each ruling saying whether it is unsure and why."""
    for name, data in (("before", _BEFORE), ("after", _AFTER), ("facts", _FACTS)):
        (tmp_path / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "compactcheck", "check", "before.json", "after.json", *_FACTS_FILE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    rulings = [
        line.split(None, 1)
        for line in lines
        if line.startswith("  ") and not line.startswith("  for review")
    ]
    assert [(ruling, rest.split(":")[0]) for ruling, rest in rulings] == [
        ("reworded", "goal 'Fix the login bug in auth/login.py'"),
        ("contradicted", "constraint 'Do not touch the public API'"),
        ("reworded", "constraint 'Use Python 3.12'"),
        ("changed", "constraint 'Keep spending under $500'"),
        ("weakened", "constraint 'Never push to main'"),
        ("weakened", "constraint 'Use only PostgreSQL for storage'"),
        ("retired", "superseded 'Use Python 3.11'"),
        ("invented", "new claim 'Use MySQL 8.'"),
    ]
    assert "violation no_invented_constraints" in done.stdout
    assert "violation constraints_not_weakened" not in done.stdout
    unsure = [line for line in lines if "(unsure: " in line]
    assert [line.split()[0] for line in unsure] == ["weakened", "weakened"]
    review = [line for line in lines if line.startswith("  for review")]
    assert len(review) == 2
    assert "constraint 'Never push to main', leaning weakened: 'avoid'" in review[0]
