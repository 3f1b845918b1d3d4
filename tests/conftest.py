"""Every test draws from its seed alone, whichever modules the session happened to load.

Hypothesis mixes constants from loaded local modules into its draws, so a derandomized test
would draw other examples depending on which tests ran before it in the same process (one
order under ``pytest -n 0``, another on each ``-n 2`` worker). See ``compactcheck/engine/draws.py``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator

import pytest

from compactcheck.engine.draws import seed_only_draws

# A third-party plugin that none of our tests uses (see addopts in pyproject.toml), blocked as well
# in every pytest process a test starts with this environment (about 0.5 s of CPU each).
UNUSED_PLUGINS = "-p no:langsmith_plugin"


def pytest_configure(config: pytest.Config) -> None:
    addopts = os.environ.get("PYTEST_ADDOPTS", "")
    if UNUSED_PLUGINS not in addopts:
        os.environ["PYTEST_ADDOPTS"] = f"{addopts} {UNUSED_PLUGINS}".strip()


@pytest.fixture(autouse=True)
def _draws_from_the_seed_alone() -> Iterator[None]:
    with seed_only_draws():
        yield


@pytest.fixture
def reaper() -> Iterator[Callable[[subprocess.Popen[str]], subprocess.Popen[str]]]:
    """Hands back each process it is given, and kills any still running when the test ends.

    A test that fails while its process runs (an assertion, a timeout) must not leave it
    behind, busy on a core, for the rest of the session.
    """
    started: list[subprocess.Popen[str]] = []

    def keep(process: subprocess.Popen[str]) -> subprocess.Popen[str]:
        started.append(process)
        return process

    yield keep
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate()
