"""The root of every error the toolkit reports to a user as one line.

It lives in the package every other one builds on, so that the laws' own errors (an unknown
view or invariant id) share the root with the command line's.
"""

from __future__ import annotations

from pydantic import ValidationError


class CompactcheckError(Exception):
    """Base of every error the toolkit reports to a user as one line (exit code 2)."""


def first_problem(error: ValidationError) -> tuple[str, str]:
    """Where (a dotted path, "" at the top level) and what the first problem of ``error`` is."""
    first = error.errors(include_url=False)[0]
    return ".".join(str(part) for part in first["loc"]), str(first["msg"])


def one_line(error: BaseException | str) -> str:
    """An error (or its text) as one line; a validation error names where its first problem is."""
    if isinstance(error, ValidationError):
        where, what = first_problem(error)
        count = error.error_count()
        more = f" (and {count - 1} more problems)" if count > 1 else ""
        text = f"{where or '(top level)'}: {what}{more}"
    else:
        text = str(error)
    return " ".join(text.split())
