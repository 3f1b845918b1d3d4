"""The toolkit's one exception hierarchy, its exit codes, and its one-line error messages.

Every error a user can meet derives from ``CompactcheckError`` and names what was expected and
what was found; the command line catches that root once, prints ``one_line(error)`` and exits
with ``ExitCode.USAGE``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from compactcheck.invariants.errors import CompactcheckError, first_problem, one_line


class ExitCode(enum.IntEnum):
    """What a `compactcheck` command's exit status means (in words: the table below)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    INCONCLUSIVE = 3
    # 4 added to the verdict's 0, 1 or 3: an output could not be written.
    UNWRITTEN = 4
    FAILED_UNWRITTEN = 5
    INCONCLUSIVE_UNWRITTEN = 7
    INTERRUPTED = 130


# Each exit status in words: `compactcheck --help` lists them, and so does the reference.
EXIT_MEANINGS: Mapping[ExitCode, str] = {
    ExitCode.OK: "nothing was broken (with --require-level N: every target reached level N); "
    "items for review, where the reading could not settle a ruling, are listed and fail "
    "nothing",
    ExitCode.FAILED: "a law was broken (with --require-level N: a target is below level N; in "
    "an audit of traces: at a compaction point; with --strict-review: a law was left for "
    "review), a regression was found, a golden case misbehaved",
    ExitCode.USAGE: "bad input: an unknown option, target or invariant, an unreadable file; "
    "for an audit of traces also a trace file cut short or of no format it reads, model calls "
    "without message content (the line names the setting to turn on), no two consecutive calls "
    "of one agent to compare, a Phoenix server that cannot be reached, is not Phoenix or has no "
    "such project",
    ExitCode.INCONCLUSIVE: "nothing was broken, but something could not be judged (errored, "
    "unknown, missing shards)",
    ExitCode.UNWRITTEN: "nothing was broken, but an output of the run could not be written (a "
    "corpus entry or a report file: the disk is full, the folder read-only or not a folder); "
    "one line names each, and the results are in the reports that could be written",
    ExitCode.FAILED_UNWRITTEN: "a law was broken (as for 1), and an output could not be "
    "written (as for 4)",
    ExitCode.INCONCLUSIVE_UNWRITTEN: "nothing was broken but something could not be judged (as "
    "for 3), and an output could not be written (as for 4)",
    # Like a shell's 128 + SIGINT.
    ExitCode.INTERRUPTED: "the run was cut short (Ctrl-C); its report says complete=false",
}


class InputFileError(CompactcheckError):
    """A file the user handed over is missing, unreadable or not what was expected."""


class OutputFileError(CompactcheckError):
    """A file the toolkit must write (report, corpus entry) cannot be written."""


__all__ = [
    "EXIT_MEANINGS",
    "CompactcheckError",
    "ExitCode",
    "InputFileError",
    "OutputFileError",
    "first_problem",
    "one_line",
]
