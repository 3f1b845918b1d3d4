"""A law as a plain Hypothesis test keeps Hypothesis's default deadline: the target's worker
process starts while pytest sets the test up, not in the time of its first case."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# A compactor whose module takes a second to import, as a framework's can: that second is
# spent when its worker process starts, and never again.
COMPACTOR = """
import time

time.sleep(1.0)


def compact(messages):
    return messages
"""

# No @settings(deadline=None): Hypothesis's default deadline of 200 ms holds.
MODULE = """
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.compactcheck("py:slow_start.py:compact", view="messages")
@settings(max_examples=5, database=None)
@given(data=st.data())
def test_law(compactcheck_law, data):
    compactcheck_law.check_case(data.draw(compactcheck_law.cases()))
"""


def _one_law(folder: Path, law: str) -> subprocess.CompletedProcess[str]:
    """pytest run in ``folder`` on its test_laws.py, for ``law`` alone."""
    options = ["-p", "no:randomly", "-p", "no:cacheprovider", "-k", law]
    options += ["--compactcheck-invariants", law]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "test_laws.py", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_worker_starts_outside_the_deadline_of_the_first_case(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "slow_start.py").write_text(COMPACTOR)
    (tmp_path / "test_laws.py").write_text(MODULE)
    done = _one_law(tmp_path, "tool_pairing")
    output = done.stdout + done.stderr
    assert "DeadlineExceeded" not in output, output
    assert "Flaky" not in output, output
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output


# Notes where simplemma reads its first word: in a test's body, or before it (the dictionary is
# loaded on that first word, about a sixth of a second of CPU, more on a loaded host).
CONFTEST = """
import simplemma

_lemmatize = simplemma.lemmatize
first = []
in_body = []


def _noted(*arguments, **keywords):
    if not first:
        first.append("body" if in_body else "before")
    return _lemmatize(*arguments, **keywords)


simplemma.lemmatize = _noted
"""

PROSE_LAW = """
import conftest
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.compactcheck("py:same.py:compact", view="messages")
@settings(max_examples=5, database=None)
@given(data=st.data())
def test_law(compactcheck_law, data):
    conftest.in_body.append(True)
    compactcheck_law.check_case(data.draw(compactcheck_law.cases()))
    assert conftest.first == ["before"], conftest.first
"""


def test_the_laws_read_their_lemma_dictionary_outside_the_deadline(tmp_path: Path) -> None:
    # A law that reads prose loads the dictionary on its first judgement: under Hypothesis's
    # deadline that load would be timed as the first case's, and fail a fast compactor.
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "same.py").write_text("def compact(messages):\n    return messages\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_laws.py").write_text(PROSE_LAW)
    done = _one_law(tmp_path, "constraints_preserved")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output
