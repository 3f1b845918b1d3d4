"""The toolkit's one exception hierarchy, its exit codes, and its one-line error messages.

Every error a user can meet derives from ``CompactcheckError`` and names what was expected and
what was found; the command line catches that root once, prints ``one_line(error)`` and exits
with ``ExitCode.USAGE``.
"""

from __future__ import annotations

import enum

from compactcheck.invariants.errors import CompactcheckError, first_problem, one_line


class ExitCode(enum.IntEnum):
    """What a `compactcheck` command's exit status means."""

    OK = 0
    # A law was broken, a regression was found, a golden case misbehaved.
    FAILED = 1
    # Bad input: an unknown option, target or invariant, an unreadable file.
    USAGE = 2
    # Nothing was broken, but something could not be judged (errored, unknown, missing shards).
    INCONCLUSIVE = 3
    # Like a shell's 128 + SIGINT: the run was cut short; its report says complete=false.
    INTERRUPTED = 130


class InputFileError(CompactcheckError):
    """A file the user handed over is missing, unreadable or not what was expected."""


class OutputFileError(CompactcheckError):
    """A file the toolkit must write (report, corpus entry) cannot be written."""


__all__ = [
    "CompactcheckError",
    "ExitCode",
    "InputFileError",
    "OutputFileError",
    "first_problem",
    "one_line",
]
