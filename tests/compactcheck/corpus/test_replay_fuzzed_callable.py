"""What `compactcheck.fuzz(callable)` writes to the corpus, `compactcheck replay` runs again."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import compactcheck
from compactcheck.base.errors import ExitCode
from compactcheck.corpus.entry import read_entry
from compactcheck.corpus.replay import replay
from tests.compactcheck.commandline import cli

# Keeps the last message only: the goal (the first user message) is lost.
FORGETFUL = """
def compact(messages):
    return messages[-1:] if len(messages) > 2 else messages


def make():
    def compact(messages):
        return messages[-1:] if len(messages) > 2 else messages

    return compact
"""


def _fuzzed(compactor: Callable[..., Any], project: Path) -> Path:
    """The corpus entry of goal_preserved a run of ``compactor`` wrote in ``project``."""
    report = compactcheck.fuzz(
        compactor,
        max_examples=10,
        seed=0,
        invariants=["goal_preserved"],
        corpus_dir=project / ".compactcheck" / "corpus",
    )
    [result] = [r for r in report.targets[0].results if r.invariant == "goal_preserved"]
    assert result.counterexample is not None
    assert result.counterexample.corpus_file is not None
    return Path(result.counterexample.corpus_file)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    return root


@pytest.fixture
def loaded(project: Path) -> Iterator[Callable[[str, str], ModuleType]]:
    """Imports a module from a file of the project, as a test suite or a script would."""
    names: list[str] = []

    def load(relative: str, name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, project / relative)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        names.append(name)
        spec.loader.exec_module(module)
        return module

    yield load
    for name in names:
        sys.modules.pop(name, None)


def test_a_function_of_a_file_is_named_by_its_path_in_the_project(
    project: Path, loaded: Callable[[str, str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "mine.py").write_text(FORGETFUL)
    entry = _fuzzed(loaded("mine.py", "mine").compact, project)
    assert read_entry(entry).target == "py:mine.py:compact"
    # Replayed from elsewhere, and after the checkout moved: the file is found in the project.
    moved = project.parent / "moved"
    project.rename(moved)
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    [result] = replay(moved / ".compactcheck" / "corpus" / entry.name)
    assert result.verdict == "still failing", result.detail


def test_a_function_of_a_package_is_named_by_its_module(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = project / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "forgetful.py").write_text(FORGETFUL)
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.chdir(project)
    from mypkg import forgetful  # type: ignore[import-not-found]

    try:
        entry = _fuzzed(forgetful.compact, project)
        assert read_entry(entry).target == "py:mypkg.forgetful:compact"
        [result] = replay(entry)
        assert result.verdict == "still failing", result.detail
    finally:
        for name in ("mypkg", "mypkg.forgetful"):
            sys.modules.pop(name, None)


def test_a_closure_says_how_to_replay_it_and_the_override_does(
    project: Path, loaded: Callable[[str, str], ModuleType]
) -> None:
    (project / "mine.py").write_text(FORGETFUL)
    entry = _fuzzed(loaded("mine.py", "mine_closure").make(), project)
    assert read_entry(entry).target == "py:mine.py:make.<locals>.compact"
    [result] = replay(entry)
    assert result.verdict == "errored"
    assert "cannot be loaded by name" in result.detail
    assert f"compactcheck replay {entry} --target py:FILE.py:NAME" in result.detail
    named = f"py:{project / 'mine.py'}:compact"
    [again] = replay(entry, target=named)
    assert again.verdict == "still failing", again.detail
    assert again.target == named
    done = cli("replay", str(entry), "--target", named, cwd=project)
    assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
    assert "STILL FAILING" in done.stdout


def test_a_lambda_says_how_to_replay_it(project: Path) -> None:
    entry = _fuzzed(lambda messages: messages[-1:] if len(messages) > 2 else messages, project)
    [result] = replay(entry)
    assert result.verdict == "errored"
    assert "<lambda> cannot be loaded by name" in result.detail
    assert "--target py:FILE.py:NAME" in result.detail


SCRIPT = f"""
{FORGETFUL}

if __name__ == "__main__":
    import compactcheck

    compactcheck.fuzz(compact, max_examples=10, seed=0, invariants=["goal_preserved"])
"""


def test_a_function_of_a_script_run_as_main_is_named_by_the_script(project: Path) -> None:
    (project / "script.py").write_text(SCRIPT)
    run = subprocess.run(
        [sys.executable, "script.py"], cwd=project, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    [entry] = (project / ".compactcheck" / "corpus").glob("*.json")
    assert read_entry(entry).target == "py:script.py:compact"
    done = cli("replay", cwd=project)
    assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
    assert "STILL FAILING" in done.stdout


def test_a_function_of_an_interactive_session_says_how_to_replay_it(project: Path) -> None:
    program = SCRIPT.replace('if __name__ == "__main__":', "if True:")
    run = subprocess.run(
        [sys.executable, "-c", program], cwd=project, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    [entry] = (project / ".compactcheck" / "corpus").glob("*.json")
    assert read_entry(entry).target == "py:__main__:compact"
    [result] = replay(entry)
    assert result.verdict == "errored"
    assert "compact was defined in an interactive session" in result.detail
    assert "--target py:FILE.py:NAME" in result.detail
