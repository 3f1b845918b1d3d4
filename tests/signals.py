"""Signals for the tests that interrupt a real compactcheck process."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable


def hear_ctrl_c() -> None:
    """In the child before exec: restore SIGINT's default disposition.

    A non-interactive shell starts a background job with SIGINT ignored, and a Python process
    that starts with SIGINT ignored never turns it into KeyboardInterrupt; CI may run us so.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# The ``reaper`` fixture (tests/conftest.py): keeps a process, kills it if the test leaves it.
Reaper = Callable[["subprocess.Popen[str]"], "subprocess.Popen[str]"]
