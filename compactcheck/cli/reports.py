"""Reading reports already written: `summary` (a matrix) and `diff` (regressions)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from compactcheck.base.errors import ExitCode
from compactcheck.render import print_regressions, print_summary
from compactcheck.report.compare import diff, summary
from compactcheck.report.io import load_report
from compactcheck.verdicts import broken_exit


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands."""
    summary_command = commands.add_parser("summary", help="target x invariant matrix of reports")
    summary_command.add_argument("reports", nargs="+", type=Path)
    summary_command.set_defaults(handler=summary_main)
    diff_command = commands.add_parser("diff", help="regressions from OLD to NEW (exit 1 on any)")
    diff_command.add_argument("old", type=Path)
    diff_command.add_argument("new", type=Path)
    diff_command.set_defaults(handler=diff_main)


def summary_main(arguments: argparse.Namespace, console: Console) -> int:
    """The target x invariant matrix of several reports."""
    print_summary(summary([load_report(path) for path in arguments.reports]), console)
    return ExitCode.OK


def diff_main(arguments: argparse.Namespace, console: Console) -> int:
    """Regressions from one report to another; failed on any."""
    regressions = diff(load_report(arguments.old), load_report(arguments.new))
    print_regressions(regressions, console)
    return broken_exit(bool(regressions))
