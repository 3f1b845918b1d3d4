"""The `compactcheck` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from rich.console import Console
from rich.table import Table

from compactcheck.errors import CompactcheckError
from compactcheck.golden import DEFAULT_CORPUS, CaseResult, case_files, load_case, run_case
from reference_engine.snapshot import ALL_RULES, RULE_STATEMENTS, SEED_RULES

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def toolkit_version() -> str:
    """The installed version of compactcheck."""
    try:
        return version("compactcheck")
    except PackageNotFoundError:
        return "0+unknown"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"compactcheck: error: {message} (see --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="compactcheck", description=__doc__)
    parser.add_argument("--version", action="version", version=f"compactcheck {toolkit_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    commands.add_parser("rules", help="list the validation rules of the snapshot engine")
    golden = commands.add_parser(
        "golden", help="run the snapshot reference engine over the golden corpus"
    )
    golden.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=DEFAULT_CORPUS,
        help="a case file or a folder of them (default: the shipped corpus)",
    )
    return parser


def _rules(console: Console) -> int:
    table = Table(title="Snapshot validation rules")
    table.add_column("rule")
    table.add_column("origin")
    table.add_column("statement")
    for rule in ALL_RULES:
        origin = "seed" if rule in SEED_RULES else "corrected mode"
        table.add_row(rule, origin, RULE_STATEMENTS[rule])
    console.print(table)
    return EXIT_OK


def _golden(console: Console, path: Path) -> int:
    results: list[CaseResult] = [run_case(load_case(file), file) for file in case_files(path)]
    if not results:
        raise CompactcheckError(f"{path}: expected golden case files (*.json), found none")
    table = Table(title=f"Snapshot reference engine on {len(results)} golden case(s)")
    table.add_column("case", no_wrap=True)
    for column in ("mode", "rnd", "outcome", "failed rules", "progress", "orphans", "verdict"):
        table.add_column(column)
    mismatches: list[str] = []
    for result in results:
        for round_ in result.rounds:
            progress = "-" if round_.made_progress is None else str(round_.made_progress).lower()
            if round_.mismatches:
                mismatches.append(
                    f"{result.path.name} round {round_.index}: " + "; ".join(round_.mismatches)
                )
            table.add_row(
                result.case.name if round_.index == 1 else "",
                result.case.mode.value if round_.index == 1 else "",
                str(round_.index),
                round_.outcome,
                ", ".join(round_.failed_rules) or "-",
                progress,
                ", ".join(round_.orphaned_results) or "-",
                "[red]MISMATCH[/]" if round_.mismatches else "[green]ok[/]",
            )
    console.print(table)
    for line in mismatches:
        console.print(f"[red]{line}[/]", markup=True, highlight=False)
    failed = [result for result in results if not result.passed]
    console.print(
        f"{len(results) - len(failed)} of {len(results)} case(s) behaved as expected"
        + (f"; unexpected: {', '.join(r.case.name for r in failed)}" if failed else "")
    )
    return EXIT_FAILED if failed else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    arguments = _parser().parse_args(argv)
    console = Console()
    try:
        if arguments.command == "rules":
            return _rules(console)
        return _golden(console, arguments.path)
    except CompactcheckError as error:
        print(f"compactcheck: error: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
