"""The pytest plugin costs nothing until asked: a project that never uses it loads nothing of ours.

pytest loads every installed ``pytest11`` plugin in every session, so ours runs in every project
that has compactcheck installed. Each test runs pytest in a subprocess inside a temporary
project whose conftest writes ``sys.modules`` down when the session ends. What other installed
plugins load (Hypothesis's own plugin imports part of Hypothesis) is the same with ours disabled
(``-p no:compactcheck``), so the comparison is against that run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from compactcheck.harness import MALFORMED
from compactcheck.invariants import VIEWS, counting
from compactcheck.invariants.formats import CHAT, FORMATS
from compactcheck.invariants.levels import LEVELS
from compactcheck.models.slot import NAMES_HELP
from compactcheck.options import kinds
from compactcheck.scale.database import REDIS_URL_VARIABLE
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIMEOUT

# What the registered plugin may load in a session that does not use it.
PLUGIN_MODULES = {
    "compactcheck",
    # The plugin's package: its __init__ is a docstring only.
    "compactcheck.pytest",
    "compactcheck.pytest.plugin",
    "compactcheck.pytest.options",
    # The run options table, standard library only.
    "compactcheck.options",
    "compactcheck.options.front_only",
    "compactcheck.options.given",
    "compactcheck.options.kinds",
    "compactcheck.options.option",
    "compactcheck.options.rules",
    "compactcheck.options.schema",
    "compactcheck.options.settling",
}
# The packages a used plugin brings, ours first (today's names and those under compactcheck).
OURS = ("compactcheck", "invariants", "strategies", "reference_engine")

CONFTEST = """
import json
import sys


def pytest_unconfigure(config):
    with open("modules.json", "w") as file:
        json.dump(sorted(sys.modules), file)
"""

PLAIN = """
def test_arithmetic():
    assert 1 + 1 == 2
"""


def _project(folder: Path, tests: str) -> Path:
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_it.py").write_text(tests)
    return folder


def _session(folder: Path, *arguments: str) -> tuple[set[str], str]:
    """The modules loaded by the end of a pytest session in ``folder``, and its output."""
    environment = {key: value for key, value in os.environ.items() if key != REDIS_URL_VARIABLE}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *arguments],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    text = done.stdout[-3000:] + done.stderr[-2000:]
    return set(json.loads((folder / "modules.json").read_text())), text


def _under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def test_a_project_that_does_not_use_compactcheck_loads_only_the_plugin_module(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, PLAIN)
    loaded, text = _session(root)
    assert "1 passed" in text, text
    ours = {name for name in loaded if _under(name, OURS)}
    assert ours == PLUGIN_MODULES
    without, _ = _session(root, "-p", "no:compactcheck")
    # Nothing else either: no Hypothesis, pydantic, rich, ... that the plugin would have brought.
    assert loaded - without == PLUGIN_MODULES


def test_a_marker_without_any_option_loads_the_plugin_when_collected(tmp_path: Path) -> None:
    tests = """
import pytest


@pytest.mark.compactcheck(
    "mutant:messages-drop-user-turns", view="messages", max_examples=10,
    invariants=["user_turn_present"],
)
def test_mutant(compactcheck_law):
    compactcheck_law.check()


def test_strategies(compactcheck_strategies):
    assert compactcheck_strategies.message_histories() is not None
"""
    loaded, text = _session(_project(tmp_path, tests), "-rA")
    # The mutant drops user turns: the law's test fails, the call law's passes.
    assert "1 failed, 2 passed" in text, text
    assert "user_turn_present broken by mutant:messages-drop-user-turns" in text
    assert "compactcheck.pytest.laws" in loaded
    assert "hypothesis" in loaded
    # The laws and strategies, under the compactcheck namespace (the only name installed).
    for package in ("invariants", "strategies"):
        assert f"compactcheck.{package}" in loaded, package


def test_what_the_options_table_writes_out_is_what_it_copies() -> None:
    # The table is loaded in every session, so it imports none of these: it copies them.
    assert kinds.VIEWS == VIEWS
    assert kinds.WIRE_FORMATS == FORMATS
    assert kinds.CHAT == CHAT
    assert kinds.DEFAULT_TIMEOUT == DEFAULT_TIMEOUT
    assert kinds.DEFAULT_MEMORY_LIMIT_MB == DEFAULT_MEMORY_LIMIT_MB
    assert tuple(MALFORMED) == kinds.MALFORMED
    assert kinds.REDIS_URL_VARIABLE == REDIS_URL_VARIABLE
    assert kinds.MODEL_NAMES_HELP == NAMES_HELP
    assert kinds.COUNTERS_HELP == counting.NAMES_HELP
    assert kinds.COUNTERS == counting.BUILT_IN
    assert tuple(str(level) for level in sorted(LEVELS)) == kinds.LEVELS
