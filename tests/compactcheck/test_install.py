"""Installed, compactcheck is one import name and leaves a user's own modules alone.

``strategies``, ``invariants`` and ``reference_engine`` are folders at the repository root but
are installed as subpackages of compactcheck (symlinks under ``compactcheck/``): a user's own
``strategies.py`` or ``invariants.py``, the common Hypothesis layout, must keep working beside
us. The tests install the package for real (``pip install --target``, not editable, from a copy
of the sources) and put that install first on ``PYTHONPATH``, so that what they run is what a
user gets; building the wheel takes a few seconds, once per module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Not part of the build: copying them would only cost time (hidden folders hold the venv and
# caches).
NOT_BUILT = {"tests", "reports", "benchmarks", "docs", "examples", "build", "dist"}
OLD_NAMES = ("invariants", "strategies", "reference_engine")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A non-editable install of the working tree, in a folder of its own."""
    work = tmp_path_factory.mktemp("install")
    source = work / "source"
    source.mkdir()
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in NOT_BUILT or entry.suffix == ".egg-info":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(
                entry,
                source / entry.name,
                symlinks=True,
                ignore=shutil.ignore_patterns("__pycache__"),
            )
        else:
            shutil.copy2(entry, source / entry.name, follow_symlinks=False)
    target = work / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), "."],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return target


def test_the_distribution_installs_one_top_level_import_name(installed: Path) -> None:
    names = {
        entry.name
        for entry in installed.iterdir()
        if not entry.name.endswith(".dist-info") and entry.name not in ("bin", "__pycache__")
    }
    assert names == {"compactcheck"}
    for name in OLD_NAMES:
        package = installed / "compactcheck" / name
        # Real files in the install, with the marker that their types are public.
        assert not package.is_symlink()
        assert (package / "__init__.py").is_file()
        assert (package / "py.typed").is_file()
    # The dist-info's own list of top-level import names, which tools read.
    metadata = next(installed.glob("compactcheck-*.dist-info"))
    assert (metadata / "top_level.txt").read_text(encoding="utf-8").split() == ["compactcheck"]


def _user_project(root: Path) -> Path:
    """A project with its own strategies.py and invariants.py, and tests/strategies.py."""
    files = {
        "pyproject.toml": """
            [tool.pytest.ini_options]
            pythonpath = ["."]
        """,
        "strategies.py": """
            def pick(messages):
                return [m for m in messages if m["role"] in ("system", "user")]
        """,
        "invariants.py": """
            OURS = "users"
        """,
        "tests/__init__.py": "",
        "tests/strategies.py": """
            from hypothesis import strategies as st

            goals = st.text(min_size=1)
        """,
        "tests/test_mine.py": """
            from hypothesis import given

            from invariants import OURS
            from strategies import pick
            from tests.strategies import goals


            @given(goals)
            def test_pick_keeps_the_goal(goal):
                assert OURS == "users"
                assert pick([{"role": "user", "content": goal}])[0]["content"] == goal
        """,
        "mine.py": """
            from strategies import pick


            def compact(messages):
                return pick(messages)
        """,
        "judge.py": """
            import compactcheck
            from invariants import OURS

            before = [
                {"role": "system", "content": "You are a careful coding agent."},
                {"role": "user", "content": "Migrate billing to Postgres 16"},
            ]
            goal = {"goal": before[1]["content"]}
            judgement = compactcheck.check(before, before, goal, invariants=["goal_preserved"])
            print(OURS, judgement.holds, compactcheck.__file__)
        """,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def _run(command: list[str], project: Path, installed: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(installed), "COLUMNS": "200"}
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )


def test_a_users_own_strategies_and_invariants_keep_working_beside_us(
    installed: Path, tmp_path: Path
) -> None:
    project = _user_project(tmp_path / "project")

    # The user's suite, with our pytest plugin loaded from the install.
    suite = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly"], project, installed)
    assert suite.returncode == 0, suite.stdout + suite.stderr
    assert "1 passed" in suite.stdout

    # A compactor beside the user's strategies.py, run by the installed console script and by
    # `python -m compactcheck`; exit 2 would be a compactor that failed to load.
    run = ["run", "py:mine.py:compact", "--in-process", "--max-examples", "10"]
    run += ["--invariants", "goal_preserved", "--seed", "0"]
    for command in (
        [str(installed / "bin" / "compactcheck")],
        [sys.executable, "-m", "compactcheck"],
    ):
        done = _run([*command, *run], project, installed)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "goal_preserved" in done.stdout, done.stdout  # judged, and held (exit 0)

    # The library, beside the user's invariants.py, from the install (not this checkout).
    judged = _run([sys.executable, "judge.py"], project, installed)
    assert judged.returncode == 0, judged.stdout + judged.stderr
    ours, holds, location = judged.stdout.split()[-3:]
    assert (ours, holds) == ("users", "True")
    assert Path(location).is_relative_to(installed)


def test_loading_everything_loads_none_of_the_old_top_level_names() -> None:
    # Both names would load the same files twice, as distinct modules (two of every pydantic
    # class). The repository root is on sys.path in our own tests: nothing may use it so.
    program = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import compactcheck
        for name in compactcheck.__all__:  # the lazy public names, each from its module
            getattr(compactcheck, name)
        for module in pkgutil.walk_packages(compactcheck.__path__, "compactcheck."):
            if module.name.endswith("__main__"):
                continue  # it runs the CLI
            try:
                importlib.import_module(module.name)
            except ImportError:  # an adapter whose framework is not installed
                pass
        top = sorted({name.split(".")[0] for name in sys.modules})
        print(" ".join(name for name in top if name in sys.argv[1:]))
        print(len([name for name in sys.modules if name.startswith("compactcheck.")]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program, *OLD_NAMES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    old, loaded = done.stdout.splitlines()
    assert old == ""
    assert int(loaded) > 200  # every subpackage was walked, the symlinked ones too
