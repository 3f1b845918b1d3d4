"""`compactcheck run`: fuzz targets and report their conformance."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.text import Text

from compactcheck.base.shards import Shard
from compactcheck.cli.options import (
    add_options,
    calls_of,
    fuzzing_options,
    interrupted_while_writing,
    outputs,
    run_config,
    unwritten_lines,
    write_named,
)
from compactcheck.cli.progress import Progress
from compactcheck.engine.core import Engine, follow
from compactcheck.options import settle
from compactcheck.render import print_report
from compactcheck.targets.registry import Target
from compactcheck.verdicts import level_gates, run_exit


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    run = commands.add_parser("run", help="fuzz targets and report their conformance")
    run.add_argument("targets", nargs="+", metavar="TARGET", help="see `compactcheck targets`")
    fuzzing_options(run, examples_help="histories per target")
    add_options(run, ["profile", "workers", "in_flight", "shard", "require_level"])
    outputs(run)
    run.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Fuzz, show progress, write the reports; the exit code says what was found."""
    # Not given: the whole run, one shard of one.
    piece: Shard = arguments.shard or Shard()
    # Also refuses a --shard without a --seed outside ci (compactcheck.options.rules).
    config = run_config(arguments, settle("cli", vars(arguments)))
    engine = Engine(
        config,
        calls=calls_of(arguments),
        workers=arguments.workers,
        in_flight=arguments.in_flight,
        shard=piece,
    )
    targets = engine.open(arguments.targets, arguments.view)
    written: dict[str, Path] = {}
    try:
        return _fuzzed(engine, targets, arguments, console, piece, written)
    except KeyboardInterrupt:
        # The first Ctrl-C ends the search and the partial report is written; a second one
        # meanwhile ends the run at once, naming what it left unwritten.
        return interrupted_while_writing(arguments, written)


def _fuzzed(
    engine: Engine,
    targets: list[Target],
    arguments: argparse.Namespace,
    console: Console,
    piece: Shard,
    written: dict[str, Path],
) -> int:
    """The run itself, once its targets are open: search, reports, exit code."""
    config = engine.config
    profile = config.profile
    try:
        reproduce = f"--seed {config.seed}" + (f" --shard {piece.label}" if piece.count > 1 else "")
        if arguments.workers > 1:
            reproduce += f" --workers {arguments.workers}"
        if engine.lanes > arguments.workers:
            # The cut follows the lanes: the same K with any worker count draws the same.
            reproduce += f" --in-flight {engine.lanes}"
        if engine.lanes > 1:
            # Each worker (or lane) resolves its own; a subprocess target must not be shared.
            for target in targets:
                target.close()
        console.print(
            f"compactcheck {config.toolkit_version}  seed {config.seed}  profile {profile}  "
            f"max-examples {config.max_examples}  rounds {config.rounds}  "
            + (f"malformed {','.join(config.malformed)}  " if config.malformed else "")
            + f"(reproduce with {reproduce})",
            highlight=False,
        )
        console.print(Text(f"corpus {config.corpus_dir} ({config.corpus_why})", style="dim"))
        with console.status("fuzzing") as status:
            progress = Progress(console, status, "interrupted: writing the partial report")
            report = follow(engine.run(targets, arguments.view), progress)
    finally:
        for target in targets:
            target.close()
    _, failed = write_named(report, arguments, written=written)
    print_report(report, console, written)
    if report.complete and arguments.require_level is not None:
        # One line per target either way: reached or below.
        for gate in level_gates(report, arguments.require_level):
            console.print(Text(gate.line(), style="green" if gate.reached else "bold red"))
    return run_exit(report, arguments.require_level, unwritten_lines(failed, console))
