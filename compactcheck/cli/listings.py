"""What the toolkit knows: `targets`, `invariants`, `rules` and generator `statistics`."""

from __future__ import annotations

import argparse

from rich.console import Console

from compactcheck.cli.options import positive
from compactcheck.errors import ExitCode
from compactcheck.report.render.listings import invariants_table, rules_table, targets_table
from invariants import VIEWS
from strategies import feature_statistics, format_statistics


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands."""
    commands.add_parser("targets", help="list the built-in targets").set_defaults(
        handler=lambda arguments, console: _show(console, targets_table())
    )
    invariants = commands.add_parser("invariants", help="list the invariant catalogue")
    invariants.add_argument("--view", choices=VIEWS)
    invariants.set_defaults(
        handler=lambda arguments, console: _show(console, invariants_table(arguments.view))
    )
    commands.add_parser(
        "rules", help="list the validation rules of the snapshot engine"
    ).set_defaults(handler=lambda arguments, console: _show(console, rules_table()))
    statistics = commands.add_parser("statistics", help="features of generated scenarios")
    statistics.add_argument("--draws", type=positive, default=300)
    statistics.add_argument("--seed", type=int, default=0)
    statistics.set_defaults(handler=statistics_main)


def _show(console: Console, table: object) -> int:
    console.print(table)
    return ExitCode.OK


def statistics_main(arguments: argparse.Namespace, console: Console) -> int:
    """How often generated scenarios show each feature."""
    stats = feature_statistics(arguments.draws, random_seed=arguments.seed)
    for line in format_statistics(stats):
        console.print(line, highlight=False)
    return ExitCode.OK
