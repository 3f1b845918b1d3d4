"""The `compactcheck` command line."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from compactcheck.cli.scaffold import scaffold
from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.corpus.replay import replay
from compactcheck.engine.conformance import (
    conformance,
    open_targets,
    report_of,
    terminate_as_interrupt,
)
from compactcheck.engine.crash import known_ids
from compactcheck.engine.target_run import Profile, RunConfig, Shard, ShardError
from compactcheck.errors import CompactcheckError
from compactcheck.golden import DEFAULT_CORPUS, CaseResult, case_files, load_case, run_case
from compactcheck.harness import MALFORMED
from compactcheck.harness.smoke import smoke_round
from compactcheck.report import untrusted
from compactcheck.report.compare import diff, summary
from compactcheck.report.io import load_report, write_report, write_text
from compactcheck.report.model import Report, TargetReport
from compactcheck.report.render import FORMATS, print_regressions, print_report, print_summary
from compactcheck.scale.campaign import Campaign
from compactcheck.scale.database import (
    REDIS_URL_VARIABLE,
    DatabaseError,
    check_reachable,
    redis_url,
)
from compactcheck.scale.merge import merge_corpora, merge_reports, merge_target_groups, point_into
from compactcheck.scale.pool import gather_corpora, plan, run_jobs
from compactcheck.targets.registry import Target, builtin_targets, resolve
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
DEFAULT_CAMPAIGN_REPORT = Path(".compactcheck") / "campaign.json"


def _csv(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a number of at least {least}, found {value}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _natural(text: str) -> int:
    return _whole(text, 0)


def _malformed(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in MALFORMED]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown malformed-input scenario(s) {', '.join(unknown) or repr(text)}; "
            f"known: {', '.join(MALFORMED)}"
        )
    return names


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, found {text}")
    return value


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ShardError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _fuzzing_options(
    parser: argparse.ArgumentParser, *, examples_help: str, default: int = 100
) -> None:
    """The options `run` and `fuzz` share."""
    parser.add_argument("--view", choices=VIEWS, help="only this view")
    parser.add_argument("--invariants", type=_csv, help="only these invariant ids (a,b,c)")
    parser.add_argument("--exclude-invariants", type=_csv, default=[], help="skip these ids")
    parser.add_argument("--max-examples", type=_positive, default=default, help=examples_help)
    parser.add_argument("--rounds", type=_positive, default=3, help="most compactions per history")
    parser.add_argument("--seed", type=int, help="run seed (default: random in dev, 0 in ci)")
    parser.add_argument("--timeout", type=_seconds, default=30.0, help="seconds per backend call")
    parser.add_argument(
        "--budget", type=_positive, help="declared size limit of compacted messages"
    )
    parser.add_argument(
        "--counter",
        choices=("messages", "characters", "approx_tokens"),
        default="approx_tokens",
        help="how --budget is counted",
    )
    parser.add_argument(
        "--malformed",
        type=_malformed,
        default=(),
        metavar="NAME[,NAME]",
        help=f"also generate messages histories a provider would reject: {', '.join(MALFORMED)} "
        "(default: none; every generated history is one the provider accepts)",
    )
    parser.add_argument(
        "--min-exercised",
        type=_natural,
        default=5,
        help="keep exploring past --max-examples until every applicable law was exercised this "
        "often (0: no extra exploring)",
    )
    parser.add_argument(
        "--max-total-examples",
        type=_positive,
        help="the cap of that exploring, in histories (default: 5 x --max-examples)",
    )
    parser.add_argument(
        "--no-shrink",
        action="store_true",
        help="report failing histories as found, without shrinking them",
    )
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS_DIR, help="crash corpus folder"
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help=f"shared Hypothesis example database (default: ${REDIS_URL_VARIABLE}); "
        "read-write in campaign, read-only in dev, unused in ci",
    )
    parser.add_argument(
        "--redis-read-only",
        action="store_true",
        help="replay what the shared database holds without writing to it",
    )


def _outputs(parser: argparse.ArgumentParser, json_default: Path | None = None) -> None:
    for name in ("json", "junit", "markdown", "html"):
        default = json_default if name == "json" else None
        parser.add_argument(
            f"--{name}", type=Path, metavar="PATH", default=default, help=f"write a {name} report"
        )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="compactcheck", description=__doc__)
    parser.add_argument("--version", action="version", version=f"compactcheck {toolkit_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="fuzz targets and report their conformance")
    run.add_argument("targets", nargs="+", metavar="TARGET", help="see `compactcheck targets`")
    _fuzzing_options(run, examples_help="histories per target")
    run.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="dev (random, local database), ci (fixed seed, no database), campaign",
    )
    run.add_argument(
        "--workers",
        type=_positive,
        default=1,
        help="worker processes; a lone target is cut into shards to keep them busy",
    )
    run.add_argument(
        "--shard",
        type=_shard,
        default=Shard(),
        metavar="I/M",
        help="run shard I of M (own seed, 1/M of the budget); `compactcheck merge` joins them",
    )
    _outputs(run)

    fuzz = commands.add_parser(
        "fuzz", help="time-boxed campaign: fresh-seeded runs of one target until time is up"
    )
    fuzz.add_argument("target", metavar="TARGET", help="see `compactcheck targets`")
    fuzz.add_argument(
        "--max-time", type=_seconds, required=True, metavar="S", help="seconds to spend"
    )
    _fuzzing_options(fuzz, examples_help="at most this many histories per iteration", default=1000)
    fuzz.add_argument(
        "--workers",
        type=_positive,
        default=1,
        help="worker processes; each iteration is cut into one shard per worker",
    )
    _outputs(fuzz, json_default=DEFAULT_CAMPAIGN_REPORT)

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
    _outputs(merge)

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


def _rules(arguments: argparse.Namespace, console: Console) -> int:
    table = Table(title="Snapshot validation rules")
    table.add_column("rule")
    table.add_column("origin")
    table.add_column("statement")
    for rule in ALL_RULES:
        origin = "seed" if rule in SEED_RULES else "corrected mode"
        table.add_row(rule, origin, RULE_STATEMENTS[rule])
    console.print(table)
    return EXIT_OK


def _golden(arguments: argparse.Namespace, console: Console) -> int:
    path: Path = arguments.path
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


def _config(arguments: argparse.Namespace, profile: Profile) -> RunConfig:
    seed = arguments.seed
    if seed is None:
        seed = 0 if profile == "ci" else secrets.randbelow(2**32)
    budget = Budget(limit=arguments.budget, counter=arguments.counter) if arguments.budget else None
    url = redis_url(arguments.redis)
    if profile == "ci" and arguments.redis is not None:
        raise DatabaseError(
            "the ci profile is deterministic and uses no example database; drop --redis or use "
            "--profile campaign (or dev, read-only)"
        )
    if profile == "ci":
        url = None
    if url is not None:
        check_reachable(url)
    return RunConfig(
        seed=seed,
        max_examples=arguments.max_examples,
        rounds=arguments.rounds,
        profile=profile,
        include=tuple(arguments.invariants) if arguments.invariants is not None else None,
        exclude=tuple(arguments.exclude_invariants),
        corpus_dir=arguments.corpus,
        toolkit_version=toolkit_version(),
        budget=budget,
        shrink=not arguments.no_shrink,
        seed_given=arguments.seed is not None,
        malformed=tuple(arguments.malformed),
        min_exercised=arguments.min_exercised,
        max_total_examples=arguments.max_total_examples,
        redis_url=url,
        redis_read_only=arguments.redis_read_only,
    )


def _check_invariants(arguments: argparse.Namespace, targets: Sequence[Target]) -> None:
    try:
        views = {view for target in targets for view in target.views}
        known = known_ids(views)
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


def _run(arguments: argparse.Namespace, console: Console) -> int:
    profile: Profile = arguments.profile or ("ci" if os.environ.get("CI") else "dev")
    shard: Shard = arguments.shard
    if shard.count > 1 and arguments.seed is None and profile != "ci":
        raise ShardError(
            f"--shard {shard.label} needs --seed S: the shards of one run must share its seed, "
            f"and the {profile} profile would pick a random one"
        )
    config = _config(arguments, profile)
    seed = config.seed
    targets = open_targets(arguments.targets, config, arguments.view, arguments.timeout)
    _check_invariants(arguments, targets)
    reproduce = f"--seed {seed}" + (f" --shard {shard.label}" if shard.count > 1 else "")
    if arguments.workers > 1:
        reproduce += f" --workers {arguments.workers}"
    console.print(
        f"compactcheck {config.toolkit_version}  seed {seed}  profile {profile}  "
        f"max-examples {config.max_examples}  rounds {config.rounds}  "
        + (f"malformed {','.join(config.malformed)}  " if config.malformed else "")
        + f"(reproduce with {reproduce})",
        highlight=False,
    )
    done: list[TargetReport] = []
    started = datetime.now(UTC).isoformat(timespec="seconds")
    complete = False
    if arguments.workers > 1:
        units = [
            (target.name, view)
            for target in targets
            for view in target.views
            if arguments.view is None or view == arguments.view
        ]
        for target in targets:
            # Each worker resolves its own; a subprocess target must not be shared.
            target.close()
        work = plan(
            units, config, shard=shard, workers=arguments.workers, timeout=arguments.timeout
        )
        if work.parts > 1:
            console.print(
                f"{arguments.workers} workers: each target cut into {work.parts} shards "
                f"({len(work.jobs)} jobs)",
                highlight=False,
            )
        try:
            # This process only waits for its workers: SIGTERM may interrupt it anywhere.
            with terminate_as_interrupt(), console.status("fuzzing") as status:
                merged = run_jobs(
                    work.jobs,
                    arguments.workers,
                    progress=lambda line: status.update(untrusted.one_line(line)),
                    partial=done,
                )
            complete = True
        except KeyboardInterrupt:
            console.print("[yellow]interrupted: writing the partial report[/]")
            merged = merge_target_groups(done)
        finally:
            gather_corpora(config.corpus_dir)
        merged = [point_into(target, config.corpus_dir) for target in merged]
        shard_config = config.for_shard(shard) if shard.count > 1 else config
        report = report_of(merged, shard_config, started, complete=complete)
    else:
        shard_config = config.for_shard(shard)
        try:
            with console.status("fuzzing") as status:
                conformance(
                    targets,
                    shard_config,
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
        report = report_of(done, shard_config, started, complete=complete)
    _write_outputs(report, arguments)
    print_report(report, console)
    if not complete:
        return EXIT_INTERRUPTED
    return report.exit_code()


def _fuzz(arguments: argparse.Namespace, console: Console) -> int:
    # A campaign is not a replay: its seed only starts the series, and it feeds the example
    # database's saved failures back in whatever seed was given.
    config = replace(_config(arguments, "campaign"), seed_given=False)
    [target] = open_targets([arguments.target], config, arguments.view, arguments.timeout)
    _check_invariants(arguments, [target])
    views = [view for view in target.views if arguments.view in (None, view)]
    database = "local + Redis" if config.redis_url else "local"
    console.print(
        f"compactcheck {config.toolkit_version}  fuzz {untrusted.one_line(target.name)}  "
        f"seed {config.seed}  for {arguments.max_time:g} s  workers {arguments.workers}  "
        f"database {database}  report {arguments.json}",
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
        timeout=arguments.timeout,
    )
    started = datetime.now(UTC).isoformat(timespec="seconds")
    complete = False
    try:
        with console.status("fuzzing") as status:
            campaign.progress = lambda line: status.update(untrusted.one_line(line))
            campaign.run()
        complete = True
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: the report on disk is marked incomplete[/]")
    finally:
        target.close()
    report = campaign.report(started, complete=complete)
    for name in ("junit", "markdown", "html"):
        path = getattr(arguments, name)
        if path is not None:
            write_text(path, FORMATS[name](report))
    print_report(report, console)
    console.print(
        f"{campaign.iterations} iteration(s), {campaign.examples} histories, "
        f"{len(campaign.failures)} distinct failure(s)",
        highlight=False,
    )
    for failure in campaign.failures.values():
        console.print(
            Text(
                f"  {failure.invariant} [{failure.signature}] seen {failure.seen}x: "
                f"{untrusted.one_line(str(failure.path))}"
            )
        )
    if not complete:
        return EXIT_INTERRUPTED
    return report.exit_code()


def _merge(arguments: argparse.Namespace, console: Console) -> int:
    reports = [load_report(path) for path in arguments.reports]
    corpus: Path | None = None
    if arguments.corpora:
        written = merge_corpora(arguments.corpora, arguments.corpus_out)
        corpus = arguments.corpus_out
        console.print(f"merged {len(written)} corpus entries into {corpus}", highlight=False)
    report = merge_reports(reports, corpus=corpus)
    _write_outputs(report, arguments)
    print_report(report, console)
    missing = report.missing_shards()
    if missing:
        # A shard that never arrived must not let the merge pass for the whole run.
        console.print(
            f"[yellow]missing shard(s) {', '.join(missing)}: this report covers "
            f"{len(report.shards)} of {len(report.shards) + len(missing)} shards[/]",
            highlight=False,
        )
        return EXIT_FAILED if report.exit_code() == EXIT_FAILED else EXIT_INCONCLUSIVE
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


def _targets(arguments: argparse.Namespace, console: Console) -> int:
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
            ok = outcome.status in ("compacted", "unchanged", "declined")
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


def _init(arguments: argparse.Namespace, console: Console) -> int:
    for path in scaffold(arguments.dir):
        console.print(f"wrote {path}", highlight=False)
    console.print("next: pytest tests/test_compactcheck_conformance.py", highlight=False)
    return EXIT_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace, Console], int]] = {
    "run": _run,
    "fuzz": _fuzz,
    "merge": _merge,
    "replay": _replay,
    "targets": _targets,
    "invariants": _invariants,
    "smoke": _smoke,
    "statistics": _statistics,
    "summary": _summary,
    "diff": _diff,
    "init": _init,
    "rules": _rules,
    "golden": _golden,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    arguments = _parser().parse_args(argv)
    console = Console()
    try:
        return _COMMANDS[arguments.command](arguments, console)
    except (CompactcheckError, UnknownInvariantError) as error:
        print(f"compactcheck: error: {untrusted.one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        # `run` and `fuzz` write their partial reports themselves; other commands just stop.
        print("compactcheck: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
