"""The suite's pytest processes, and those its tests start, leave out plugins no test uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compactcheck.commandline import pytest_in

UNUSED = "langsmith_plugin"


def test_this_session_blocks_the_unused_plugin(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.is_blocked(UNUSED)


def test_a_pytest_run_a_test_starts_blocks_it_too(tmp_path: Path) -> None:
    (tmp_path / "test_blocked.py").write_text(
        "def test_blocked(pytestconfig):\n"
        f"    assert pytestconfig.pluginmanager.is_blocked({UNUSED!r})\n"
    )
    done = pytest_in(tmp_path, "test_blocked.py")
    assert done.returncode == 0, done.stdout + done.stderr
