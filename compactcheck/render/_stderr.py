"""A target's stderr tail read as a person reads it: what its compactor wrote, and what tells of
a problem (a restart, a crash, a worker's own line)."""

from __future__ import annotations

import re

from compactcheck.report.model import TargetReport

# compactcheck's note of a restart in the stderr tail (subprocess_backend), a worker's own line
# (backends.isolated), and the first line of a Python crash report and of a traceback.
_NOTE = re.compile(r"^\[compactcheck: .*\]$")
_WORKER_LINE = "compactcheck worker: "
_FATAL = "Fatal Python error:"
_TRACEBACK = "Traceback (most recent call last):"
# A line of a faulthandler dump (a frame has no comma before "in", unlike a traceback's), which
# a stderr tail cut before its "Fatal Python error" line still shows.
_FAULT_LINE = re.compile(
    r'^(  File ".*", line \d+ in \S+|(Current thread|Thread) 0x[0-9a-f]+ .*|Extension modules: .*)$'
)
# How much of the stderr a report keeps (engine.results).
_TAIL = 4000
# The most lines after a traceback's frames that still read as its exception's message.
_EXCEPTION_LINES = 5


def stderr_parts(target: TargetReport) -> tuple[str, str]:
    """A target's stderr tail as what its compactor wrote, and what tells of a problem.

    A ``py:`` worker sends the compactor's prints (and native writes to its stdout) to stderr,
    and so does a harness its diagnostics: they are its output, not a problem. Problems are
    compactcheck's notes of a restart and the worker's own lines, and the tail of a crash: a
    Python fatal error (faulthandler) up to the restart, and a traceback the process ended on.
    """
    # Split at newlines only: other line breaks (CR, NEL) are shown escaped, as anywhere else.
    lines = target.stderr.split("\n")
    problem = [False] * len(lines)
    crashed_from: int | None = None
    for index, line in enumerate(lines):
        if line.startswith(_FATAL) and crashed_from is None:
            crashed_from = index
        if _NOTE.match(line):
            start = crashed_from if crashed_from is not None else _traceback_before(lines, index)
            for marked in range(start if start is not None else index, index + 1):
                problem[marked] = True
            crashed_from = None
        elif line.startswith(_WORKER_LINE) or _FAULT_LINE.match(line):
            problem[index] = True
    if len(target.stderr) >= _TAIL and len(lines) > 1:
        # The tail was cut: its first line is the end of one, of the kind of the line after it.
        problem[0] = problem[1]
    if crashed_from is not None:
        # It crashed on its last call: nothing restarted it yet.
        for marked in range(crashed_from, len(lines)):
            problem[marked] = True
    output = [line for line, marked in zip(lines, problem, strict=True) if not marked]
    shown = [line for line, marked in zip(lines, problem, strict=True) if marked]
    return "\n".join(output).strip("\n"), "\n".join(shown).strip("\n")


def _traceback_before(lines: list[str], note: int) -> int | None:
    """Where the traceback a process ended on starts, when one ends just before ``note``: its
    header, its indented frames, then at most a few lines of the exception."""
    for start in range(note - 1, -1, -1):
        if _NOTE.match(lines[start]):
            return None
        if lines[start].startswith(_TRACEBACK):
            after = start + 1
            while after < note and lines[after].startswith(" "):
                after += 1
            rest = [line for line in lines[after:note] if line.strip()]
            return start if len(rest) <= _EXCEPTION_LINES else None
    return None
