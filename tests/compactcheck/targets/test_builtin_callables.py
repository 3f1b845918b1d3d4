"""The module of built-in compactors as ``py:`` callables, loaded by a worker process per case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compactcheck.targets.registry import all_mutants
from tests.compactcheck.targets import builtin_callables

ROOT = Path(__file__).resolve().parents[3]


def test_its_mutants_are_the_registry_s() -> None:
    for name, mutant in all_mutants().items():
        assert builtin_callables._mutant(name) is mutant
    with pytest.raises(KeyError):
        builtin_callables._mutant("no-such-mutant")
    with pytest.raises(AttributeError):
        builtin_callables.__getattr__("mutant~no-such-mutant")


def test_a_worker_loading_a_messages_mutant_imports_no_registry_nor_other_views() -> None:
    """A worker imports the compactor it runs, not every target's (a fraction of a second of
    CPU in each of the few hundred workers a test session starts)."""
    script = (
        "import sys\n"
        "from tests.compactcheck.targets import builtin_callables\n"
        "builtin_callables.builtin_callable('mutant~messages-keep-last-n')\n"
        "print(sorted(name for name in sys.modules if name.startswith((\n"
        "    'compactcheck.targets.registry', 'compactcheck.reference_engine.session',\n"
        "    'compactcheck.reference_engine.snapshot'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stdout
