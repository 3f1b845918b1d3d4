"""The reference session engine keeps a well-formed log with the session log model, never with
the judge's own checker: the laws must be able to catch it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
JUDGE_CHECKER = {"LogChecker", "check_log", "assert_log_valid"}
JUDGE_MODULES = (
    "compactcheck.invariants.laws",
    "compactcheck.invariants.catalogue",
    "compactcheck.invariants.session.checker",
    "compactcheck.invariants.session.checkpoint",
)


def _imports(path: Path) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.extend((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((alias.name, "") for alias in node.names)
    return found


@pytest.mark.parametrize(
    "path", sorted((ROOT / "reference_engine" / "session").glob("*.py")), ids=lambda p: p.name
)
def test_the_session_engine_does_not_validate_itself_with_the_judge(path: Path) -> None:
    reached = [
        f"{module}.{name}"
        for module, name in _imports(path)
        if name in JUDGE_CHECKER or module.startswith(JUDGE_MODULES)
    ]
    assert not reached, f"{path.relative_to(ROOT)} uses the judge's checker: {reached}"
