"""The `compactcheck` command line: one module per command (or per family of small ones).

Every command is a function of its parsed arguments and a console that returns an exit code
(``errors.ExitCode``); errors the user can fix are caught here, once, as one line.

This module imports the commands only when it runs them: the toolkit's errors import its laws,
and the commands the engine, which a run with workers gives its fork server a head start on
(``cli.head_start``); the fork server itself imports this module and needs none of them.
"""

from __future__ import annotations

import atexit
import gc
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactcheck.cli.head_start import head_start

if TYPE_CHECKING:
    from compactcheck.cli.options import Parser

_DESCRIPTION = "Find the histories on which a context compactor breaks its contract."


def _parser() -> Parser:
    from compactcheck.base.errors import EXIT_MEANINGS
    from compactcheck.cli import (
        checks,
        drift,
        fuzz,
        init,
        listings,
        maintainers,
        merge,
        pairs,
        reports,
        run,
    )
    from compactcheck.cli.options import Parser, toolkit_version

    meanings = "; ".join(f"{int(code)} {text}" for code, text in EXIT_MEANINGS.items())
    parser = Parser(
        prog="compactcheck", description=_DESCRIPTION, epilog=f"exit status: {meanings}"
    )
    parser.add_argument("--version", action="version", version=f"compactcheck {toolkit_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    # Our own reference engine's checks come last, apart from a user's commands.
    for command in (run, fuzz, drift, merge, checks, pairs, listings, reports, init, maintainers):
        command.add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    # The heap is left uncollected as the process exits: collecting it then (with the engine
    # imported, a third of a second on a busy host, after every command) frees nothing that
    # outlives the process. Registered once, however often main runs in one process.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    head_start(sys.argv[1:] if argv is None else argv)
    from rich.console import Console

    from compactcheck.base.errors import CompactcheckError, ExitCode, one_line
    from compactcheck.report import untrusted

    arguments = _parser().parse_args(argv)
    console = Console()
    try:
        return int(arguments.handler(arguments, console))
    except CompactcheckError as error:
        print(f"compactcheck: error: {untrusted.safe_line(one_line(error))}", file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        # `run` and `fuzz` write their partial reports themselves; other commands just stop.
        print("compactcheck: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
