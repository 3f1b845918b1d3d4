"""`compactcheck check BEFORE AFTER` and `compactcheck audit LOG`: compactions that happened."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from compactcheck.base.errors import CompactcheckError, ExitCode, one_line
from compactcheck.base.selection import Selection
from compactcheck.cli.options import csv, outputs, reading_option, toolkit_version, write_outputs
from compactcheck.invariants import VIEWS, Facts
from compactcheck.invariants.formats import FORMATS
from compactcheck.observed.audit import Finding, audit
from compactcheck.observed.judging import Judgement, PairError, check_pair
from compactcheck.report import untrusted
from compactcheck.report.render import print_report
from compactcheck.report.verdicts import pair_verdict


class PairFileError(CompactcheckError, OSError):
    """A file of a pair or of facts that cannot be read as JSON."""


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register both commands."""
    check = commands.add_parser(
        "check", help="judge one compaction you have: BEFORE went in, AFTER came out"
    )
    check.add_argument("before", type=Path, metavar="BEFORE", help="JSON file ('-': stdin)")
    check.add_argument("after", type=Path, metavar="AFTER", help="JSON file")
    check.add_argument("--view", choices=VIEWS, default="messages", help="default: messages")
    _common(check)
    check.set_defaults(handler=check_main)
    log = commands.add_parser(
        "audit", help="judge a JSON Lines file or folder of recorded compactions"
    )
    log.add_argument("log", type=Path, metavar="LOG", help="a .jsonl file or a folder of them")
    log.add_argument("--quiet", action="store_true", help="no line per violation, only the report")
    _common(log)
    outputs(log)
    log.set_defaults(handler=audit_main)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="the messages format (default: detected from each pair's shape)",
    )
    parser.add_argument(
        "--facts",
        metavar="JSON",
        help="declared facts: a JSON object or a file holding one (the rest is inferred)",
    )
    reading_option(parser)
    parser.add_argument("--invariants", type=csv, help="only these invariant ids (a,b,c)")
    parser.add_argument("--exclude-invariants", type=csv, default=[], help="skip these ids")


def _declared(arguments: argparse.Namespace) -> dict[str, Any] | None:
    """The declared facts, with the reading ``--verbatim`` asks for."""
    facts = _facts(arguments.facts)
    if not arguments.verbatim:
        return facts
    return {**(facts or {}), "reading": "verbatim"}


def _json_file(path: Path, what: str) -> Any:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PairFileError(f"{what} {path}: cannot read it: {one_line(error)}") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise PairFileError(f"{what} {path}: not JSON: {one_line(error)}") from None


def _facts(given: str | None) -> dict[str, Any] | None:
    if given is None:
        return None
    stripped = given.strip()
    data = (
        _json_object(stripped) if stripped.startswith("{") else _json_file(Path(given), "--facts")
    )
    if not isinstance(data, dict):
        raise PairFileError("--facts: expected a JSON object (goal, constraints, must_keep, ...)")
    _check_facts(data)
    return data


def _check_facts(data: dict[str, Any]) -> None:
    """PairFileError naming the first field of the declared facts that is not of its kind."""
    try:
        # The goal may be left to inference: any text stands in for it here.
        Facts.model_validate({"goal": "", **data})
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in problem["loc"])
        found = problem.get("input")
        if problem["type"] in ("tuple_type", "list_type"):
            raise PairFileError(
                f"--facts: {field}: expected a list, found {json.dumps(found)}; write "
                f'"{field}": [{json.dumps(found)}]'
            ) from None
        if problem["type"] == "extra_forbidden":
            raise PairFileError(
                f"--facts: {field} is not a field of facts; expected some of "
                f"{', '.join(Facts.model_fields)}"
            ) from None
        raise PairFileError(f"--facts: {field or '(top level)'}: {problem['msg']}") from None


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise PairFileError(f"--facts: not JSON: {one_line(error)}") from None


# How a ruling is coloured: faithful ones green, those a law fails on red, weakened yellow.
_COLOURS = {
    "kept": "green",
    "reworded": "green",
    "retired": "green",
    "weakened": "yellow",
}


def check_main(arguments: argparse.Namespace, console: Console) -> int:
    """Judge the pair; one line per law; exit 1 on a violation."""
    before = _json_file(arguments.before, "BEFORE")
    after = _json_file(arguments.after, "AFTER")
    try:
        judgement = check_pair(
            before,
            after,
            _declared(arguments),
            view=arguments.view,
            format=arguments.format,
            selection=Selection(arguments.invariants, arguments.exclude_invariants),
        )
    except PairError as error:
        if not error.side:
            raise
        path = arguments.before if error.side == "before" else arguments.after
        detail = str(error).removeprefix(f"the {error.side} side is ")
        raise PairFileError(f"{error.side.upper()} {path}: {detail}") from None
    where = f"{arguments.view}" + (f", {judgement.format}" if judgement.format else "")
    console.print(escape(f"compactcheck check [{where}]"), highlight=False)
    if judgement.inferred:
        console.print(
            f"facts inferred from BEFORE, not declared: {_counted(judgement)}",
            style="dim",
            highlight=False,
        )
    for read in judgement.inferences:
        if read.field == "must_keep":
            continue
        sure = "" if read.certainty == "certain" else ", unsure"
        said = untrusted.safe_line(f"{read.field.rstrip('s')} {read.text!r} ({read.source}{sure})")
        console.print(f"  [dim]inferred[/dim] {escape(said)}", highlight=False)
    if judgement.rulings:
        console.print("rulings (what AFTER did to each fact of BEFORE):", highlight=False)
    for made in judgement.rulings:
        colour = _COLOURS.get(made.ruling, "yellow")
        said = f": {made.sentence!r}" if made.sentence and made.ruling != "kept" else ""
        kind = "new claim" if made.kind == "invented" else made.kind
        # An unsure ruling says so, and why: no law fails on it.
        unsure = f" (unsure: {made.reason})" if not made.certain else ""
        line = untrusted.safe_line(f"{kind} {made.fact!r}{said}{unsure}")
        console.print(
            f"  [{colour}]{made.ruling:<12}[/{colour}] {escape(line)}",
            highlight=False,
        )
    for finding in judgement.findings:
        verdict = pair_verdict(finding)
        if verdict == "violation":
            for violation in finding.violations:
                because = untrusted.safe_line(violation.because)
                console.print(
                    f"[red]violation[/red] {finding.invariant}: {escape(because)}",
                    highlight=False,
                )
        elif verdict == "pass":
            console.print(f"[green]pass[/green] {finding.invariant}", highlight=False)
        else:
            console.print(
                f"[dim]not exercised {finding.invariant} (this pair could not break it)[/dim]",
                highlight=False,
            )
        for item in finding.review:
            # What the reading could not settle, never a pass in silence.
            said = untrusted.safe_line(
                f"{item.kind} {item.fact!r}, leaning {item.leans}: {item.reason}"
            )
            console.print(f"  [yellow]for review[/yellow] {escape(said)}", highlight=False)
    broken = len(judgement.violations)
    exercised = sum(1 for f in judgement.findings if f.exercised)
    console.print(
        f"{broken} violation(s); {exercised} of {len(judgement.findings)} laws exercised",
        highlight=False,
    )
    verdicts = {pair_verdict(finding) for finding in judgement.findings}
    if "violation" in verdicts:
        return ExitCode.FAILED
    return ExitCode.OK if "pass" in verdicts else ExitCode.INCONCLUSIVE


def audit_main(arguments: argparse.Namespace, console: Console) -> int:
    """Judge every pair of the log, a line per violation as found, then the report."""

    def show(found: Finding) -> None:
        if not arguments.quiet:
            print(untrusted.safe_line(found.line_text()), flush=True)

    report = audit(
        arguments.log,
        format=arguments.format,
        invariants=arguments.invariants,
        exclude=tuple(arguments.exclude_invariants),
        facts=_declared(arguments),
        on_violation=show,
        toolkit_version=toolkit_version(),
    )
    write_outputs(report, arguments)
    print_report(report, console)
    target = report.targets[0]
    if not target.calls:
        return ExitCode.USAGE
    return report.exit_code()


def _counted(judgement: Judgement) -> str:
    """The inferred facts, each with how many were found: none found is a law with nothing to
    hold on to, which a reader must see ("constraints (0)")."""
    facts = judgement.facts
    named = []
    for name in judgement.inferred:
        value = getattr(facts, name, None) if facts is not None else None
        if isinstance(value, tuple):
            named.append(f"{name} ({len(value)})")
        else:
            named.append(name if value else f"{name} (none)")
    return ", ".join(named)
