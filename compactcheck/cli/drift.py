"""`compactcheck drift`: one long run compacted ten times or more, each fact followed per round."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import CompactcheckError
from compactcheck.cli.options import call_options, calls_of, model_options, model_slot, natural
from compactcheck.engine.drift import run_drift
from compactcheck.render.drift import print_drift, render_drift_html
from compactcheck.strategies.drift import MIN_ROUNDS
from compactcheck.targets.registry import resolve
from compactcheck.verdicts import drift_exit


def _rounds(text: str) -> int:
    value = natural(text)
    if value < MIN_ROUNDS:
        raise argparse.ArgumentTypeError(
            f"expected at least {MIN_ROUNDS} rounds (a drift run chains that many), got {value}"
        )
    return value


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    drift = commands.add_parser(
        "drift",
        help="compact one long run after every turn and show, per round, which facts were "
        "kept, lost or reasserted",
    )
    drift.add_argument("target", help="a messages target (a summariser, with --model)")
    drift.add_argument(
        "--rounds",
        type=_rounds,
        default=MIN_ROUNDS,
        metavar="N",
        help="compactions in the run, one per turn (default and least: %(default)s)",
    )
    drift.add_argument("--seed", type=natural, default=0, help="which run (default: %(default)s)")
    drift.add_argument("--json", type=Path, metavar="FILE", help="write the record as JSON")
    drift.add_argument("--html", type=Path, metavar="FILE", help="write an HTML page with a chart")
    call_options(drift)
    model_options(drift)
    drift.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Run the drift run; failed when a round lost or reasserted a fact."""
    target = resolve(
        arguments.target, view="messages", calls=calls_of(arguments), model=model_slot(arguments)
    )
    try:
        if "messages" not in target.views:
            raise CompactcheckError(
                f"{target.name}: handles the {', '.join(target.views)} view(s); drift needs a "
                "messages target"
            )
        run = run_drift(target, arguments.seed, arguments.rounds)
    finally:
        target.close()
    if arguments.json is not None:
        write_text_atomically(arguments.json, run.model_dump_json(indent=2) + "\n")
    if arguments.html is not None:
        write_text_atomically(arguments.html, render_drift_html(run))
    print_drift(run, console)
    return drift_exit(any(r.facts for r in run.rounds), run.failed())
