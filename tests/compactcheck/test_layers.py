"""The packages stay layers: import-linter's contracts (pyproject.toml) hold on the code as it is.

The contracts order the packages top to bottom, keep the laws free of everything above them and
forbid any import cycle between sibling packages or modules; the real `lint-imports` checks them
in a subprocess, as `./dev test` does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports() -> str:
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.exists() else shutil.which("lint-imports")
    if found is None:
        pytest.fail("lint-imports is missing: install the dev extra (pip install -e '.[dev]')")
    return found


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_every_contract_is_kept() -> None:
    done = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_contracts_cover_layers_laws_and_cycles() -> None:
    kinds = {str(contract["type"]) for contract in _contracts()}
    assert {"layers", "forbidden", "acyclic_siblings"} <= kinds
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    assert isinstance(layers, list)
    # Top and bottom as the README's layout section tells them.
    assert layers[0].startswith("compactcheck.cli")
    assert layers[-2:] == ["compactcheck.base", "compactcheck.invariants"]


def _layered() -> set[str]:
    """Every package or module a layer of the layers contract names."""
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    assert isinstance(layers, list)
    return {name.strip() for layer in layers for name in re.split(r"[:|]", str(layer))}


def test_every_module_of_the_package_is_in_a_layer() -> None:
    # A module in no layer is free to import anything: the contract would not see it.
    package = ROOT / "compactcheck"
    children = {
        f"compactcheck.{path.stem}"
        for path in package.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert children - _layered() == set()
    assert _layered() - children == set()
    # The laws may import none of the others, whatever layer they are in.
    laws = next(c for c in _contracts() if c["type"] == "forbidden")
    forbidden = set(laws["forbidden_modules"])  # type: ignore[call-overload]
    assert children - forbidden == {"compactcheck.invariants"}


def test_a_package_cycle_breaks_the_contracts(tmp_path: Path) -> None:
    """The contracts can fail: the laws importing the engine is caught."""
    copy = tmp_path / "tree"
    shutil.copytree(
        ROOT,
        copy,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".venv*",
            ".git",
            ".*cache*",
            ".hypothesis",
            ".compactcheck",
            "*.egg-info",
            "build",
            "tests",
            "reports",
            "benchmarks",
            "docs",
            "examples",
        ),
    )
    law = copy / "invariants" / "law.py"
    law.write_text(law.read_text() + "\nimport compactcheck.engine.core  # noqa: E402, F401\n")
    done = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy)},
    )
    assert done.returncode != 0
    assert "compactcheck.invariants is not allowed to import compactcheck.engine" in done.stdout


def test_no_module_of_the_face_is_over_400_lines() -> None:
    """The modules a user meets first (the API, the command line, the plugin, the options table)
    stay short enough to read in one sitting."""
    package = Path(__file__).resolve().parents[2] / "compactcheck"
    face = [
        package / "__init__.py",
        package / "api.py",
        *package.glob("pytest_*.py"),
        *(package / "cli").glob("*.py"),
        *(package / "options").glob("*.py"),
    ]
    assert len(face) > 10, face
    long = {
        path.relative_to(package).as_posix(): n
        for path in face
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
