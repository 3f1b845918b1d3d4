"""What the toolkit knows: `targets`, `invariants` and generator `statistics`."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from compactcheck.base.call_law import call_law
from compactcheck.base.errors import ExitCode
from compactcheck.cli.options import add_options, positive
from compactcheck.invariants import VIEWS, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.render.listings import (
    invariants_table,
    law_formats,
    targets_table,
)
from compactcheck.strategies import feature_statistics, format_statistics
from compactcheck.strategies.statistics import format_statistics_lines, format_statistics_of
from compactcheck.targets.registry import builtin_targets


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands."""
    targets = commands.add_parser("targets", help="list the built-in targets")
    targets.add_argument("--json", action="store_true", help="as JSON, one object per target")
    targets.set_defaults(handler=targets_main)
    invariants = commands.add_parser("invariants", help="list the invariant catalogue")
    invariants.add_argument("--view", choices=VIEWS)
    invariants.add_argument("--json", action="store_true", help="as JSON, one object per law")
    invariants.set_defaults(handler=invariants_main)
    statistics = commands.add_parser("statistics", help="features of generated scenarios")
    statistics.add_argument("--draws", type=positive, default=300)
    add_options(statistics, ["seed"], helps={"seed": "which draws (default: %(default)s)"})
    statistics.set_defaults(handler=statistics_main)


def _show(console: Console, table: object) -> int:
    console.print(table)
    return ExitCode.OK


def _json(rows: list[dict[str, str]]) -> int:
    # Plain stdout, not the console: a program reads it, and rich would wrap long lines.
    print(json.dumps(rows, indent=1))
    return ExitCode.OK


def targets_main(arguments: argparse.Namespace, console: Console) -> int:
    """The built-in targets, as a table or as JSON."""
    if arguments.json:
        return _json(
            [
                {"target": name, "view": view, "description": description}
                for name, (view, description) in builtin_targets().items()
            ]
        )
    return _show(console, targets_table(console.width))


def invariants_main(arguments: argparse.Namespace, console: Console) -> int:
    """The invariant catalogue (of one view, or of all), as a table or as JSON."""
    if arguments.json:
        laws = [*(call_law(view) for view in VIEWS if arguments.view in (None, view))]
        laws += catalogue(arguments.view, ALL_FORMATS)
        return _json(
            [
                {
                    "view": law.view,
                    "id": law.id,
                    "statement": law.statement,
                    **({"formats": law_formats(law)} if law.view == "messages" else {}),
                    **({"mirrors": law.mirrors} if law.mirrors else {}),
                }
                for law in laws
            ]
        )
    return _show(console, invariants_table(arguments.view, console.width))


def statistics_main(arguments: argparse.Namespace, console: Console) -> int:
    """How often generated scenarios show each feature."""
    stats = feature_statistics(arguments.draws, random_seed=arguments.seed)
    for line in format_statistics(stats):
        console.print(line, highlight=False)
    by_format = format_statistics_of(arguments.draws, random_seed=arguments.seed)
    for line in format_statistics_lines(by_format):
        console.print(line, highlight=False)
    return ExitCode.OK
