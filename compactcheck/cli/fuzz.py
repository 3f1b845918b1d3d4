"""`compactcheck fuzz`: a time-boxed campaign of fresh-seeded runs of one target."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.text import Text

from compactcheck.cli.options import (
    add_options,
    calls_of,
    fuzzing_options,
    interrupted_while_writing,
    outputs,
    run_config,
    seconds,
    unwritten_lines,
    write_named,
)
from compactcheck.engine.campaign import Campaign
from compactcheck.engine.core import Engine
from compactcheck.options import settle_campaign
from compactcheck.render import print_report
from compactcheck.report import untrusted
from compactcheck.verdicts import run_exit


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    fuzz = commands.add_parser(
        "fuzz", help="time-boxed campaign: fresh-seeded runs of one target until time is up"
    )
    fuzz.add_argument("target", metavar="TARGET", help="see `compactcheck targets`")
    fuzz.add_argument(
        "--max-time", type=seconds, required=True, metavar="S", help="seconds to spend"
    )
    fuzzing_options(fuzz, examples_help="at most this many histories per iteration")
    add_options(
        fuzz,
        ["workers"],
        helps={"workers": "worker processes; each iteration is cut into one shard per worker"},
    )
    outputs(fuzz)
    fuzz.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Run the campaign; its report is on disk after every iteration."""
    # A campaign is not a replay: its seed only starts the series, and it feeds the example
    # database's saved failures back in whatever seed was given.
    config = replace(run_config(arguments, settle_campaign(vars(arguments))), target_phase=True)
    if arguments.json is None:
        # The campaign's report lives beside its corpus, in the tested project's state folder.
        arguments.json = config.corpus_dir.parent / "campaign.json"
    [target] = Engine(config, calls=calls_of(arguments)).open([arguments.target], arguments.view)
    views = [view for view in target.views if arguments.view in (None, view)]
    database = "local + Redis" if config.redis_url else "local"
    console.print(
        f"compactcheck {config.toolkit_version}  fuzz {untrusted.safe_line(target.name)}  "
        f"seed {config.seed}  for {arguments.max_time:g} s  workers {arguments.workers}  "
        f"database {database}  report {arguments.json}\n"
        f"corpus {config.corpus_dir} ({config.corpus_why})",
        highlight=False,
    )
    if arguments.workers > 1:
        # Each worker resolves its own; a subprocess target must not be shared.
        target.close()
    campaign = Campaign(
        target,
        views,
        config,
        arguments.max_time,
        report_path=arguments.json,
        workers=arguments.workers,
        calls=calls_of(arguments),
    )
    started = datetime.now(UTC).isoformat(timespec="seconds")
    complete = False
    try:
        with console.status("fuzzing") as status:
            campaign.progress = lambda line: status.update(untrusted.safe_line(line))
            campaign.run()
        complete = True
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: the report on disk is marked incomplete[/]")
    finally:
        target.close()
    report = campaign.report(started, complete=complete)
    # The campaign itself keeps the JSON report up to date (when it could write it).
    written: dict[str, Path] = {}
    if campaign.unwritten is None and arguments.json is not None and Path(arguments.json).exists():
        written["json"] = Path(arguments.json)
    try:
        _, failed = write_named(report, arguments, json=False, written=written)
    except KeyboardInterrupt:
        # Ctrl-C again while the reports are written: the run ends, naming what it left.
        return interrupted_while_writing(arguments, written)
    if campaign.unwritten is not None:
        failed.insert(0, campaign.unwritten)
    print_report(report, console, written)
    console.print(
        f"{campaign.iterations} iteration(s), {campaign.examples} histories, "
        f"{len(campaign.failures)} distinct failure(s)",
        highlight=False,
    )
    for failure in campaign.failures.values():
        console.print(
            Text(
                f"  {failure.invariant} [{failure.signature}] seen {failure.seen}x: "
                f"{untrusted.safe_line(str(failure.path))}"
            )
        )
    # The report says complete=false when the campaign was cut short.
    return run_exit(report, unwritten=unwritten_lines(failed, console))
