"""Signals for the tests that interrupt a run: real processes, and a compactor that interrupts."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable, Iterator

import pytest


def hear_ctrl_c() -> None:
    """In the child before exec: restore SIGINT's default disposition.

    A non-interactive shell starts a background job with SIGINT ignored, and a Python process
    that starts with SIGINT ignored never turns it into KeyboardInterrupt; CI may run us so.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# The ``reaper`` fixture (tests/conftest.py): keeps a process, kills it if the test leaves it.
Reaper = Callable[["subprocess.Popen[str]"], "subprocess.Popen[str]"]


# A compactor (a Python file's source) that sends its own process SIGINT on its fifth call, like
# a Ctrl-C that arrives while a compactor is busy.
SELF_INTERRUPTING = """
import os
import signal

calls = 0


def compact(messages):
    global calls
    calls += 1
    if calls == 5:
        os.kill(os.getpid(), signal.SIGINT)
    return messages[-2:]
"""


@pytest.fixture
def ctrl_c_heard() -> Iterator[None]:
    """SIGINT with Python's default handler (a background job starts with it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
