"""What the library face loads: production paths without the fuzzer, names that stay functions.

``compactcheck.check`` and ``compactcheck.guard`` run inside a user's production code: they judge
a pair with the laws and nothing else, so they must not load Hypothesis, our strategies, our
reference engine or matplotlib. Each case runs in a fresh interpreter (this test process has
loaded everything long ago), from a folder of its own, as a user's program would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import compactcheck

# Import names only fuzzing (or drawing) needs, today's and those after the move under the
# compactcheck namespace.
FUZZING_ONLY = (
    "hypothesis",
    "strategies",
    "reference_engine",
    "matplotlib",
    "compactcheck.strategies",
    "compactcheck.reference_engine",
)

HISTORY = """[
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Fix the failing test in parser.py; never touch setup.cfg."},
    {"role": "assistant", "content": "Reading parser.py."},
    {"role": "user", "content": "Keep the public API as it is."},
]"""

PROGRAMS = {
    "check": f"""
history = {HISTORY}
judgement = compactcheck.check(history, history[:1] + history[-1:])
assert not judgement.holds, judgement
""",
    "guard": f"""
history = {HISTORY}
compact = compactcheck.guard(lambda messages: messages[:1] + messages[-1:], on_violation="log")
assert compact(history) == history[:1] + history[-1:]
assert compact.stats.violated == 1, compact.stats
""",
}


def _loaded_after(program: str, folder: Path) -> list[str]:
    """The modules loaded once ``program`` ran after ``import compactcheck``, in a new process."""
    script = (
        "import json, sys\nimport compactcheck\n"
        + program
        + "\nprint(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def _fuzzing_modules(loaded: list[str]) -> list[str]:
    return [
        name
        for name in loaded
        if any(name == prefix or name.startswith(prefix + ".") for prefix in FUZZING_ONLY)
    ]


@pytest.mark.parametrize("entry", sorted(PROGRAMS))
def test_a_production_path_loads_no_fuzzing_machinery(entry: str, tmp_path: Path) -> None:
    loaded = _loaded_after(PROGRAMS[entry], tmp_path)
    assert "compactcheck.observed.judging" in loaded  # the pair was judged by the laws
    assert _fuzzing_modules(loaded) == []


def test_fuzzing_still_loads_them(tmp_path: Path) -> None:
    # The control: the same probe sees them when something does need them.
    loaded = _loaded_after("import compactcheck.engine.target_run", tmp_path)
    assert "hypothesis" in loaded
    assert "strategies" in loaded or "compactcheck.strategies" in loaded


def test_no_submodule_shadows_a_public_name(tmp_path: Path) -> None:
    # Importing a submodule binds it as an attribute of the package: one named like a public
    # function (once compactcheck/convert.py) replaced that function by the module.
    script = """
import importlib, inspect, pkgutil
import compactcheck

for module in pkgutil.iter_modules(compactcheck.__path__):
    if module.name != "__main__":
        importlib.import_module("compactcheck." + module.name)
shadowed = [name for name in compactcheck.__all__ if inspect.ismodule(getattr(compactcheck, name))]
assert not shadowed, shadowed
print(compactcheck.convert([{"role": "user", "content": "hi"}], "openai-chat", "anthropic"))
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'messages'" in done.stdout


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert compactcheck.__version__ == version("compactcheck")
