"""Our own reference engine's checks, for who maintains it: `golden` cases, its `rules`.

They judge the snapshot reference engine that ships with the toolkit, not a user's compactor:
listed apart in the help, after the commands a user runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from compactcheck.base.errors import CompactcheckError, ExitCode
from compactcheck.reference_engine.golden import (
    DEFAULT_CORPUS,
    CaseResult,
    case_files,
    load_case,
    run_case,
)
from compactcheck.render.listings import golden_table, rules_table
from compactcheck.verdicts import broken_exit

# What the help says before each of these commands, so that a user can tell them apart.
MARK = "(maintainers) "


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands."""
    golden = commands.add_parser(
        "golden", help=MARK + "run the snapshot reference engine over the golden corpus"
    )
    golden.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=DEFAULT_CORPUS,
        help="a case file or a folder of them (default: the shipped corpus)",
    )
    golden.set_defaults(handler=golden_main)
    commands.add_parser(
        "rules", help=MARK + "list the validation rules of the snapshot reference engine"
    ).set_defaults(handler=rules_main)


def rules_main(arguments: argparse.Namespace, console: Console) -> int:
    """The snapshot reference engine's validation rules, as a table."""
    del arguments
    console.print(rules_table())
    return ExitCode.OK


def golden_main(arguments: argparse.Namespace, console: Console) -> int:
    """Every golden case through the snapshot reference engine; failed on any mismatch."""
    path: Path = arguments.path
    results: list[CaseResult] = [run_case(load_case(file), file) for file in case_files(path)]
    if not results:
        raise CompactcheckError(f"{path}: expected golden case files (*.json), found none")
    console.print(golden_table(results))
    for result in results:
        for round_ in result.rounds:
            if round_.mismatches:
                line = f"{result.path.name} round {round_.index}: " + "; ".join(round_.mismatches)
                console.print(f"[red]{line}[/]", markup=True, highlight=False)
    failed = [result for result in results if not result.passed]
    console.print(
        f"{len(results) - len(failed)} of {len(results)} case(s) behaved as expected"
        + (f"; unexpected: {', '.join(r.case.name for r in failed)}" if failed else "")
    )
    return broken_exit(bool(failed))
