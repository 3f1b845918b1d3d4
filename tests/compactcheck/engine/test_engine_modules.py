"""The engine's modules stay small and import each other in one direction."""

from __future__ import annotations

import ast
from pathlib import Path

import compactcheck

PACKAGE = Path(compactcheck.__file__).parent


def _imported(path: Path) -> set[str]:
    """Every module a file imports, at run time or for type checking alone."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_engine_modules_are_small_and_import_each_other_in_one_direction() -> None:
    engine = PACKAGE / "engine"
    modules = {path.stem: path for path in engine.glob("*.py") if path.stem != "__init__"}
    long = {
        name: n for name, path in modules.items() if (n := len(path.read_text().splitlines())) > 400
    }
    assert long == {}
    graph = {
        name: {
            other
            for other in modules
            if other != name and f"compactcheck.engine.{other}" in _imported(path)
        }
        for name, path in modules.items()
    }
    # The report is assembled from the judge and the search, never from the run that holds them.
    assert "target_run" not in graph["results"]
    assert "target_run" not in graph["search"]
    assert "results" not in graph["search"]

    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
            for nxt in graph[start]
        )

    assert [name for name in graph if reaches(name, name)] == []
