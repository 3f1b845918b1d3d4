"""`compactcheck merge`: join the JSON reports and crash corpora of a run's shards."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from compactcheck.cli.options import outputs, write_outputs
from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.render import print_report
from compactcheck.report.io import load_report
from compactcheck.scale.merge import merge_corpora, merge_reports
from compactcheck.verdicts import merge_exit


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    merge = commands.add_parser("merge", help="join the JSON reports and corpora of shards")
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    merge.add_argument(
        "--corpus",
        dest="corpora",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a shard's crash corpus folder (repeatable)",
    )
    merge.add_argument(
        "--corpus-out",
        type=Path,
        default=DEFAULT_CORPUS_DIR,
        metavar="DIR",
        help="where the merged corpus goes (default: %(default)s)",
    )
    outputs(merge)
    merge.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Merge; a shard that never arrived makes the result inconclusive at best."""
    reports = [load_report(path) for path in arguments.reports]
    corpus: Path | None = None
    if arguments.corpora:
        written = merge_corpora(arguments.corpora, arguments.corpus_out)
        corpus = arguments.corpus_out
        console.print(f"merged {len(written)} corpus entries into {corpus}", highlight=False)
    report = merge_reports(reports, corpus=corpus)
    write_outputs(report, arguments)
    print_report(report, console)
    missing = report.missing_shards()
    if missing:
        # A shard that never arrived must not let the merge pass for the whole run.
        console.print(
            f"[yellow]missing shard(s) {', '.join(missing)}: this report covers "
            f"{len(report.shards)} of {len(report.shards) + len(missing)} shards[/]",
            highlight=False,
        )
    return merge_exit(report)
