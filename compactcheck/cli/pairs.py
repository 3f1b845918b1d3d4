"""`compactcheck check BEFORE AFTER` and `compactcheck audit LOG`: compactions that happened."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from compactcheck.base.errors import CompactcheckError, one_line
from compactcheck.base.selection import Selection
from compactcheck.cli import github, traces
from compactcheck.cli.options import (
    add_options,
    opened_judge,
    outputs,
    reading_option,
    toolkit_version,
    write_outputs,
)
from compactcheck.invariants import Facts
from compactcheck.observed.audit import Finding, audit
from compactcheck.observed.judging import PairError, check_pair
from compactcheck.render import print_report
from compactcheck.render.judgement import print_judgement
from compactcheck.report import untrusted
from compactcheck.verdicts import audit_exit, pair_exit

# How a recorded pair's items for review are settled and counted.
REVIEWING = ("judge", "max_judge_calls", "strict_review")


class PairFileError(CompactcheckError, OSError):
    """A file of a pair or of facts that cannot be read as JSON."""


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register both commands."""
    check = commands.add_parser(
        "check", help="judge one compaction you have: BEFORE went in, AFTER came out"
    )
    check.add_argument("before", type=Path, metavar="BEFORE", help="JSON file ('-': stdin)")
    check.add_argument("after", type=Path, metavar="AFTER", help="JSON file")
    add_options(check, ["view"], helps={"view": "the view of the pair (default: messages)"})
    _common(check)
    check.set_defaults(handler=check_main)
    log = commands.add_parser(
        "audit", help="judge a JSON Lines file or folder of recorded compactions"
    )
    log.add_argument(
        "log",
        type=Path,
        metavar="LOG",
        nargs="?",
        help="a .jsonl file of pairs or a folder of them, or trace files (OTLP, LangSmith, "
        "Langfuse, Agents SDK)",
    )
    log.add_argument("--quiet", action="store_true", help="no line per violation, only the report")
    _common(log)
    outputs(log)
    traces.add(log)
    log.set_defaults(handler=audit_main)


def _common(parser: argparse.ArgumentParser) -> None:
    helps = {"format": "the messages format (default: detected from each pair's shape)"}
    add_options(parser, ["format"], helps=helps)
    parser.add_argument(
        "--facts",
        metavar="JSON",
        help="declared facts: a JSON object or a file holding one (the rest is inferred)",
    )
    reading_option(parser)
    add_options(parser, ["invariants", "exclude_invariants", *REVIEWING])


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
            judge=opened_judge(arguments),
        )
    except PairError as error:
        if not error.side:
            raise
        path = arguments.before if error.side == "before" else arguments.after
        detail = str(error).removeprefix(f"the {error.side} side is ")
        raise PairFileError(f"{error.side.upper()} {path}: {detail}") from None
    print_judgement(judgement, arguments.view, console)
    return pair_exit(judgement.findings, arguments.strict_review)


def audit_main(arguments: argparse.Namespace, console: Console) -> int:
    """Judge every pair of the log, a line per violation as found, then the report."""
    if traces.wanted(arguments):
        arguments.declared_facts = _declared(arguments)
        return traces.traces_main(arguments, console)
    if arguments.log is None:
        raise PairFileError("audit: give LOG (a .jsonl file of pairs, or trace files)")

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
        judge=opened_judge(arguments),
        strict_review=arguments.strict_review,
    )
    write_outputs(report, arguments)
    print_report(report, console)
    github.step_summary(report)
    return audit_exit(report)
