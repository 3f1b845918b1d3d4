"""The judge does not live inside what it judges: the harness reaches the reference engine only
through ``compactcheck.reference_engine.shared_semantics``, so no reference compactor or mutant can
change the verdict on a third-party target."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ENGINE = "compactcheck.reference_engine"
SHARED = f"{ENGINE}.shared_semantics"


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package.replace(".", "/")).rglob("*.py"))


def _imported(path: Path) -> Iterator[str]:
    """Every module a file imports, at any depth (TYPE_CHECKING blocks and functions too)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("path", _modules("compactcheck.harness"), ids=lambda path: path.name)
def test_the_harness_imports_only_the_shared_contract_from_the_reference_engine(
    path: Path,
) -> None:
    reached = {
        name for name in _imported(path) if _within(name, ENGINE) and not _within(name, SHARED)
    }
    assert not reached, (
        f"{path.relative_to(ROOT)} imports {sorted(reached)}; the harness may import only "
        f"{SHARED} from {ENGINE} (move what it needs there)"
    )


@pytest.mark.parametrize("path", _modules(SHARED), ids=lambda path: path.name)
def test_the_shared_contract_imports_nothing_else_from_the_reference_engine(path: Path) -> None:
    reached = {
        name for name in _imported(path) if _within(name, ENGINE) and not _within(name, SHARED)
    }
    assert not reached, f"{path.relative_to(ROOT)} reaches into {sorted(reached)}"


def test_only_the_shared_contract_itself_imports_its_private_modules() -> None:
    # Resolved: compactcheck/reference_engine is a symlink to the root folder walked below.
    package = (ROOT / SHARED.replace(".", "/")).resolve()
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for folder in ("compactcheck", "reference_engine", "strategies", "invariants", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if package not in path.resolve().parents
        for name in _imported(path)
        if _within(name, SHARED) and "._" in name.removeprefix(SHARED)
    ]
    assert not offenders, f"import {SHARED} itself, not its private modules: {offenders}"


@pytest.mark.parametrize("path", _modules("compactcheck.invariants"), ids=lambda path: path.name)
def test_the_laws_import_neither_the_harness_nor_the_reference_engine(path: Path) -> None:
    reached = {
        name
        for name in _imported(path)
        if _within(name, ENGINE) or _within(name, "compactcheck.harness")
    }
    assert not reached, f"{path.relative_to(ROOT)} imports {sorted(reached)}"


def test_loading_the_harness_loads_no_reference_compactor() -> None:
    # Transitively too: a reference compactor or mutant that is never loaded cannot decide
    # anything about a third-party target.
    harness = [
        f"compactcheck.harness.{path.stem}"
        for path in _modules("compactcheck.harness")
        if path.stem != "__init__"
    ]
    program = (
        "import importlib, sys\n"
        f"for name in {harness!r}:\n"
        "    importlib.import_module(name)\n"
        f"print('\\n'.join(sorted(m for m in sys.modules if m.startswith({ENGINE!r}))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert loaded, "the harness should load the shared contract"
    assert {name for name in loaded if not _within(name, SHARED)} == {ENGINE}
