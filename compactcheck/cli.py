"""The `compactcheck` command line."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from compactcheck import untrusted
from compactcheck.compare import diff, summary
from compactcheck.conformance import conformance, open_targets, report_of
from compactcheck.corpus import DEFAULT_CORPUS_DIR
from compactcheck.errors import CompactcheckError
from compactcheck.golden import DEFAULT_CORPUS, CaseResult, case_files, load_case, run_case
from compactcheck.render import FORMATS, print_regressions, print_report, print_summary
from compactcheck.replay import replay
from compactcheck.report import Report, TargetReport
from compactcheck.report_io import load_report, write_report, write_text
from compactcheck.runner import Profile, RunConfig
from compactcheck.scaffold import scaffold
from compactcheck.smoke import smoke_round
from compactcheck.targets import builtin_targets, resolve
from invariants import VIEWS, Budget, UnknownInvariantError, catalogue
from reference_engine.snapshot import ALL_RULES, RULE_STATEMENTS, SEED_RULES
from strategies import feature_statistics, format_statistics

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3
# Like a shell's 128 + SIGINT: the run was cut short; the partial report says complete=false.
EXIT_INTERRUPTED = 130


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


PROFILES = ("dev", "ci", "campaign")


def _csv(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, found {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, found {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="compactcheck", description=__doc__)
    parser.add_argument("--version", action="version", version=f"compactcheck {toolkit_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="fuzz targets and report their conformance")
    run.add_argument("targets", nargs="+", metavar="TARGET", help="see `compactcheck targets`")
    run.add_argument("--view", choices=VIEWS, help="only this view")
    run.add_argument("--invariants", type=_csv, help="only these invariant ids (a,b,c)")
    run.add_argument("--exclude-invariants", type=_csv, default=[], help="skip these ids")
    run.add_argument("--max-examples", type=_positive, default=100, help="histories per target")
    run.add_argument("--rounds", type=_positive, default=3, help="most compactions per history")
    run.add_argument("--seed", type=int, help="run seed (default: random in dev, 0 in ci)")
    run.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="dev (random, local database), ci (fixed seed, no database), campaign",
    )
    run.add_argument("--timeout", type=_seconds, default=30.0, help="seconds per backend call")
    run.add_argument("--budget", type=_positive, help="declared size limit of compacted messages")
    run.add_argument(
        "--counter",
        choices=("messages", "characters", "approx_tokens"),
        default="approx_tokens",
        help="how --budget is counted",
    )
    run.add_argument(
        "--no-shrink",
        action="store_true",
        help="report failing histories as found, without shrinking them",
    )
    run.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS_DIR, help="crash corpus folder")
    for name in ("json", "junit", "markdown", "html"):
        run.add_argument(f"--{name}", type=Path, metavar="PATH", help=f"write a {name} report")

    replay = commands.add_parser("replay", help="re-run the crash corpus: fixed or still failing")
    replay.add_argument("path", nargs="?", type=Path, default=DEFAULT_CORPUS_DIR)
    replay.add_argument("--timeout", type=_seconds, default=30.0)

    commands.add_parser("targets", help="list the built-in targets")
    invariants = commands.add_parser("invariants", help="list the invariant catalogue")
    invariants.add_argument("--view", choices=VIEWS)
    smoke = commands.add_parser("smoke", help="one tiny history through each view of a target")
    smoke.add_argument("target")
    smoke.add_argument("--timeout", type=_seconds, default=30.0)
    statistics = commands.add_parser("statistics", help="features of generated scenarios")
    statistics.add_argument("--draws", type=_positive, default=300)
    statistics.add_argument("--seed", type=int, default=0)
    summary_command = commands.add_parser("summary", help="target x invariant matrix of reports")
    summary_command.add_argument("reports", nargs="+", type=Path)
    diff_command = commands.add_parser("diff", help="regressions from OLD to NEW (exit 1 on any)")
    diff_command.add_argument("old", type=Path)
    diff_command.add_argument("new", type=Path)

    init = commands.add_parser("init", help="scaffold an adapter and a pytest module")
    init.add_argument("--dir", type=Path, default=Path("."), help="where to write (default: .)")

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


def _run(arguments: argparse.Namespace, console: Console) -> int:
    profile: Profile = arguments.profile or ("ci" if os.environ.get("CI") else "dev")
    seed = arguments.seed
    if seed is None:
        seed = 0 if profile == "ci" else secrets.randbelow(2**32)
    budget = Budget(limit=arguments.budget, counter=arguments.counter) if arguments.budget else None
    config = RunConfig(
        seed=seed,
        max_examples=arguments.max_examples,
        rounds=arguments.rounds,
        profile=profile,
        include=arguments.invariants,
        exclude=arguments.exclude_invariants,
        corpus_dir=arguments.corpus,
        toolkit_version=toolkit_version(),
        budget=budget,
        shrink=not arguments.no_shrink,
    )
    targets = open_targets(arguments.targets, config, arguments.view, arguments.timeout)
    try:
        views = {view for target in targets for view in target.views}
        known = {law.id for view in views for law in catalogue(view)}
        named = [*(arguments.invariants or []), *arguments.exclude_invariants]
        unknown = [name for name in named if name not in known]
        if unknown:
            raise UnknownInvariantError(
                f"unknown invariant(s) {', '.join(unknown)} for the {', '.join(sorted(views))} "
                f"view(s); `compactcheck invariants` lists them"
            )
    except BaseException:
        for target in targets:
            target.close()
        raise
    console.print(
        f"compactcheck {config.toolkit_version}  seed {seed}  profile {profile}  "
        f"max-examples {config.max_examples}  rounds {config.rounds}  "
        f"(reproduce with --seed {seed})",
        highlight=False,
    )
    done: list[TargetReport] = []
    started = datetime.now(UTC).isoformat(timespec="seconds")
    complete = False
    try:
        with console.status("fuzzing") as status:
            conformance(
                targets,
                config,
                view=arguments.view,
                progress=lambda line: status.update(untrusted.one_line(line)),
                partial=done,
            )
        complete = True
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: writing the partial report[/]")
    finally:
        for target in targets:
            target.close()
    report = report_of(done, config, started, complete=complete)
    _write_outputs(report, arguments)
    print_report(report, console)
    if not complete:
        return EXIT_INTERRUPTED
    return report.exit_code()


def _write_outputs(report: Report, arguments: argparse.Namespace) -> None:
    if arguments.json is not None:
        write_report(report, arguments.json)
    for name in ("junit", "markdown", "html"):
        path = getattr(arguments, name)
        if path is not None:
            write_text(path, FORMATS[name](report))


def _replay(arguments: argparse.Namespace, console: Console) -> int:
    results = replay(arguments.path, timeout=arguments.timeout)
    if not results:
        console.print(f"no corpus entries at {arguments.path}")
        return EXIT_OK
    table = Table(
        title=f"Replay of {len(results)} corpus entr{'y' if len(results) == 1 else 'ies'}"
    )
    for column in ("target", "view", "invariant", "verdict", "detail"):
        table.add_column(column)
    colour = {"fixed": "green", "still failing": "red", "errored": "yellow"}
    for item in results:
        table.add_row(
            Text(untrusted.one_line(item.target)),
            item.view,
            item.invariant,
            Text(item.verdict.upper(), style=colour[item.verdict]),
            Text(untrusted.one_line(item.detail)),
        )
    console.print(table)
    verdicts = {item.verdict for item in results}
    if "still failing" in verdicts:
        return EXIT_FAILED
    return EXIT_INCONCLUSIVE if "errored" in verdicts else EXIT_OK


def _targets(console: Console) -> int:
    table = Table(title="Built-in targets (also: py:module:attr, py:file.py:attr, cmd:COMMAND)")
    for column in ("target", "view", "what it is"):
        table.add_column(column)
    for name, (view, description) in builtin_targets().items():
        table.add_row(name, view, description)
    console.print(table)
    return EXIT_OK


def _invariants(arguments: argparse.Namespace, console: Console) -> int:
    table = Table(title="Invariant catalogue")
    for column in ("view", "id", "statement"):
        table.add_column(column)
    for law in catalogue(arguments.view):
        table.add_row(law.view, law.id, law.statement)
    console.print(table)
    return EXIT_OK


def _smoke(arguments: argparse.Namespace, console: Console) -> int:
    target = resolve(arguments.target, timeout=arguments.timeout)
    failed = False
    try:
        for view in target.views:
            outcome = smoke_round(target, view)
            detail = outcome.reason or f"answered in round {outcome.round}"
            ok = outcome.status in ("compacted", "declined")
            failed |= not ok
            console.print(
                Text(
                    f"{view}: {outcome.status} ({untrusted.one_line(detail)})",
                    style="green" if ok else "red",
                )
            )
    finally:
        target.close()
    return EXIT_FAILED if failed else EXIT_OK


def _statistics(arguments: argparse.Namespace, console: Console) -> int:
    stats = feature_statistics(arguments.draws, random_seed=arguments.seed)
    for line in format_statistics(stats):
        console.print(line, highlight=False)
    return EXIT_OK


def _summary(arguments: argparse.Namespace, console: Console) -> int:
    print_summary(summary([load_report(path) for path in arguments.reports]), console)
    return EXIT_OK


def _diff(arguments: argparse.Namespace, console: Console) -> int:
    regressions = diff(load_report(arguments.old), load_report(arguments.new))
    print_regressions(regressions, console)
    return EXIT_FAILED if regressions else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    arguments = _parser().parse_args(argv)
    console = Console()
    try:
        if arguments.command == "run":
            return _run(arguments, console)
        if arguments.command == "replay":
            return _replay(arguments, console)
        if arguments.command == "targets":
            return _targets(console)
        if arguments.command == "invariants":
            return _invariants(arguments, console)
        if arguments.command == "smoke":
            return _smoke(arguments, console)
        if arguments.command == "statistics":
            return _statistics(arguments, console)
        if arguments.command == "summary":
            return _summary(arguments, console)
        if arguments.command == "diff":
            return _diff(arguments, console)
        if arguments.command == "init":
            for path in scaffold(arguments.dir):
                console.print(f"wrote {path}", highlight=False)
            console.print("next: pytest tests/test_compactcheck_conformance.py", highlight=False)
            return EXIT_OK
        if arguments.command == "rules":
            return _rules(console)
        return _golden(console, arguments.path)
    except (CompactcheckError, UnknownInvariantError) as error:
        print(f"compactcheck: error: {untrusted.one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
