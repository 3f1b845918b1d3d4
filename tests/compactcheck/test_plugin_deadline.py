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


def test_the_worker_starts_outside_the_deadline_of_the_first_case(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "slow_start.py").write_text(COMPACTOR)
    (tmp_path / "test_laws.py").write_text(MODULE)
    options = ["-p", "no:randomly", "-p", "no:cacheprovider", "-k", "tool_pairing"]
    options += ["--compactcheck-invariants", "tool_pairing"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "test_laws.py", *options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    assert "DeadlineExceeded" not in output, output
    assert "Flaky" not in output, output
    assert done.returncode == 0, output
    assert "1 passed" in done.stdout, output
