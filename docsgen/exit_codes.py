"""The exit codes page, from the toolkit's one table of them."""

from __future__ import annotations

from compactcheck.base.errors import EXIT_MEANINGS
from docsgen.markdown import cell, code, page, table


def render() -> str:
    """The page ``reference/exit-codes.md``."""
    rows = [
        [code(str(int(status))), code(status.name), cell(text)]
        for status, text in EXIT_MEANINGS.items()
    ]
    intro = (
        "Every `compactcheck` command exits with one of these statuses (the library raises "
        "instead; `compactcheck.ExitCode` holds the same numbers). A command line that cannot "
        "be parsed exits 2 with one line naming what was expected."
    )
    return page("Exit codes", intro, table(["status", "name", "meaning"], rows))
