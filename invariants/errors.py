"""The root of every error the toolkit reports to a user as one line.

It lives in the package every other one builds on, so that the laws' own errors (an unknown
view or invariant id) share the root with the command line's.
"""

from __future__ import annotations


class CompactcheckError(Exception):
    """Base of every error the toolkit reports to a user as one line (exit code 2)."""
