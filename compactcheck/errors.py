"""The toolkit's one exception hierarchy: every message names what was expected and found."""

from __future__ import annotations


class CompactcheckError(Exception):
    """Base of every error the toolkit reports to a user as one line (exit code 2)."""


class InputFileError(CompactcheckError):
    """A file the user handed over is missing, unreadable or not what was expected."""


class OutputFileError(CompactcheckError):
    """A file the toolkit must write (report, corpus entry) cannot be written."""
