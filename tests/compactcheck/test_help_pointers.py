"""User-facing text of the toolkit points into the documentation site, not at README sections.

The README is a short front door; the reference and the guides live in docs/. A help string or
an error message that sends the user to "the README's section on ..." would dangle.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "compactcheck"


def _string_literals() -> list[tuple[str, int, str]]:
    found: list[tuple[str, int, str]] = []
    # Not following symlinks: the laws, strategies and reference engine are linked in here, and
    # their generated history texts may name a README file of the agent's project.
    for folder, _, names in os.walk(PACKAGE, followlinks=False):
        for name in names:
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.append((str(path.relative_to(PACKAGE)), node.lineno, node.value))
    return found


def test_no_user_facing_string_sends_the_reader_to_the_readme() -> None:
    pointers = [
        f"{path}:{line}: {text!r}"
        for path, line, text in _string_literals()
        if "README" in text and "README.md" not in text
    ]
    assert pointers == []
