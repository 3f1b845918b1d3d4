"""What the commands share: argument types, the fuzzing options, the run config, the outputs."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from compactcheck.base.errors import ExitCode, OutputFileError
from compactcheck.base.files import installed_version
from compactcheck.corpus import location
from compactcheck.engine.config import RunConfig, check_options, from_options
from compactcheck.engine.config import model_slot as slot_of
from compactcheck.models import MeteredModel, ModelSlot
from compactcheck.models.judge import judge_of
from compactcheck.observed.transcripts import Transcript, load_transcripts
from compactcheck.options import BY_KEY, Option, Settled, offered_by
from compactcheck.options.kinds import (
    PROFILES,
    REPORTS,
    csv,
    natural,
    positive,
    seconds,
    shard,
)
from compactcheck.render import FORMATS
from compactcheck.report import untrusted
from compactcheck.report.io import write_report, write_text
from compactcheck.report.model import Report
from compactcheck.targets.calls import Calls

# The table's value kinds (csv, positive, ...) stay importable from here, where the commands
# have long found them.
__all__ = [
    "FUZZING",
    "PROFILES",
    "Parser",
    "add_options",
    "call_options",
    "calls_of",
    "csv",
    "format_option",
    "fuzzing_options",
    "model_options",
    "model_slot",
    "natural",
    "outputs",
    "positive",
    "reading_option",
    "run_config",
    "seconds",
    "shard",
    "toolkit_version",
    "write_named",
    "write_outputs",
]


def toolkit_version() -> str:
    """The installed version of compactcheck."""
    return installed_version()


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<given>[^']*)' \(choose from (?P<choices>.*)\)")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, exit code 2, with a did-you-mean.

    Python 3.11's argparse suggests nothing (``suggest_on_error`` came in 3.14).
    """

    _given: tuple[str, ...] = ()

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """The parsed arguments; an unknown option is named with the option it resembles."""
        self._given = tuple(sys.argv[1:] if args is None else args)
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            options = [*self._option_string_actions, *_command_options(self, parsed)]
            self.error(f"unrecognized arguments: {' '.join(extras)}{_meant(extras, options)}")
        return parsed

    def error(self, message: str) -> None:  # type: ignore[override]
        found = _INVALID_CHOICE.search(message)
        if found is not None:
            choices = re.findall(r"'([^']*)'", found["choices"])
            close = difflib.get_close_matches(found["given"], choices, n=1)
            if close:
                message += f"; did you mean {close[0]}?"
        elif message.endswith("required: command"):
            # `compactcheck --verison`: the unknown option, not the missing command, is the slip.
            unknown = [
                given
                for given in self._given
                if given.startswith("-") and given.split("=")[0] not in self._option_string_actions
            ]
            if unknown:
                meant = _meant(unknown, list(self._option_string_actions))
                message = f"unrecognized arguments: {' '.join(unknown)}{meant}"
        self.exit(ExitCode.USAGE, f"compactcheck: error: {message} (see --help)\n")


def _meant(given: Sequence[str], options: Sequence[str]) -> str:
    """ "; did you mean --seed?" for the options among ``given`` that resemble one ("" if none)."""
    guesses = [
        (close[0], option)
        for item in given
        if item.startswith("-")
        and (close := difflib.get_close_matches(option := item.split("=")[0], options, n=1))
    ]
    if not guesses:
        return ""
    if len(guesses) == 1:
        return f"; did you mean {guesses[0][0]}?"
    return f"; did you mean {', '.join(f'{meant} for {option}' for meant, option in guesses)}?"


def _command_options(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> list[str]:
    """The option strings of the command the arguments chose (its own parser's)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(parsed, action.dest or "", "") or "")
            if chosen is not None:
                return list(chosen._option_string_actions)
    return []


# Options of the table that `run` has and `fuzz` (the campaign command) does not, or not alike.
_RUN_ONLY = ("profile", "workers", "in_flight", "shard", "require_level", *REPORTS)
# What `run` and `fuzz` share: the table's command-line options less those.
FUZZING = tuple(option.key for option in offered_by("cli") if option.key not in _RUN_ONLY)
_CALLS = ("timeout", "in_process", "memory_limit")
_MODEL = ("model", "model_cache", "max_model_calls", "max_model_tokens", "offline")


def _typed(option: Option) -> Callable[[str], Any]:
    """The argparse type of an option; one with choices keeps argparse's own "invalid
    choice" error (and with it the did-you-mean that ``Parser`` adds)."""
    if option.choices is None:
        return option.parse
    choices = option.choices
    return lambda text: option.parse(text) if text in choices else text


def add_options(
    parser: argparse.ArgumentParser,
    keys: Sequence[str],
    *,
    helps: Mapping[str, str] | None = None,
) -> None:
    """Add the options of the table named by ``keys`` (``compactcheck.options``), as the
    command line spells them, with the table's default for the parser's command (its
    ``prog``'s last word); a command's own help where given."""
    command = parser.prog.split()[-1]
    for key in keys:
        option = BY_KEY[key]
        assert option.cli is not None, key
        default = option.default_for("cli", command)
        text = (helps or {}).get(key, option.help)
        if option.flag:
            parser.add_argument(option.cli, action="store_true", help=text)
            continue
        parser.add_argument(
            option.cli,
            type=_typed(option),
            choices=[option.parse(each) for each in option.choices] if option.choices else None,
            default=default,
            metavar=option.metavar,
            help=text,
        )


def reading_option(parser: argparse.ArgumentParser) -> None:
    """--verbatim: the messages laws look facts up as their exact text, not by their tokens."""
    add_options(parser, ["verbatim"])


def format_option(parser: argparse.ArgumentParser) -> None:
    """--format: the wire format of the messages view."""
    add_options(parser, ["format"])


def model_options(parser: argparse.ArgumentParser, *, replay: bool = False) -> None:
    """Which model the built-in summarisers write with, and how its calls are kept and capped."""
    helps = {
        "model": "the model that writes the summaries of an entry recorded with one (default: "
        "the one it records)"
    }
    add_options(parser, _MODEL, helps=helps if replay else None)


def opened_judge(arguments: argparse.Namespace) -> MeteredModel | None:
    """The judge the options name (--judge), opened with its cap; None without one."""
    slot = judge_of(vars(arguments))
    return slot.shared().open() if slot is not None else None


def model_slot(arguments: argparse.Namespace) -> ModelSlot | None:
    """The model slot the options name; None without one."""
    values = {key: getattr(arguments, key) for key in _MODEL}
    check_options(values, "cli")
    return slot_of(values)


def call_options(parser: argparse.ArgumentParser) -> None:
    """How a target's calls are made: --timeout, --in-process, --memory-limit."""
    add_options(parser, _CALLS)


def calls_of(arguments: argparse.Namespace) -> Calls:
    """The call options the user gave."""
    return Calls.from_options(vars(arguments))


def fuzzing_options(parser: argparse.ArgumentParser, *, examples_help: str) -> None:
    """The options `run` and `fuzz` share."""
    add_options(parser, FUZZING, helps={"max_examples": examples_help})


def outputs(parser: argparse.ArgumentParser) -> None:
    """The report files a command can write."""
    add_options(parser, REPORTS)


def write_outputs(report: Report, arguments: argparse.Namespace, *, json: bool = True) -> None:
    """Write every report file asked for (the JSON one only where ``json``); OutputFileError
    for the first that could not be written, once the others are."""
    failed = write_named(report, arguments, json=json)[1]
    if failed:
        raise failed[0]


def write_named(
    report: Report,
    arguments: argparse.Namespace,
    *,
    json: bool = True,
    written: dict[str, Path] | None = None,
) -> tuple[dict[str, Path], list[OutputFileError]]:
    """Write every report file asked for (the JSON one only where ``json``): the files written
    by format name (the console names those that hold a witness whole), and the error of each
    that could not be written, the others written all the same. ``written``, where given, is
    filled as each file is written, so that a second Ctrl-C meanwhile can name the others."""
    written = {} if written is None else written
    failed: list[OutputFileError] = []
    for name in REPORTS:
        path = getattr(arguments, name)
        if path is None:
            continue
        try:
            if name != "json":
                write_text(path, FORMATS[name](report))
            elif json:
                write_report(report, path)
        except OutputFileError as error:
            failed.append(error)
        else:
            # Without ``json`` the caller keeps the JSON report itself (a campaign does).
            written[name] = Path(path)
    return written, failed


def interrupted_while_writing(arguments: argparse.Namespace, written: Mapping[str, Path]) -> int:
    """A second Ctrl-C while a run wrote its partial reports: one line naming each report file
    asked for and not written (``written`` holds those that were), and the interrupted exit."""
    missing = [
        f"the {name} report {path}"
        for name in REPORTS
        if (path := getattr(arguments, name, None)) is not None and name not in written
    ]
    said = f"; not written: {', '.join(missing)}" if missing else ""
    print(untrusted.safe_line(f"compactcheck: interrupted{said}", 4000), file=sys.stderr)
    return ExitCode.INTERRUPTED


def unwritten_lines(failed: Sequence[OutputFileError], console: Console) -> list[str]:
    """Say each output a run could not write, one line each (corpus entries, as its report
    names them, then report files); the lines."""
    lines = [f"not written: {error}" for error in failed]
    for line in lines:
        console.print(Text(untrusted.safe_line(line), style="bold red"))
    return lines


def absolute_outputs(arguments: argparse.Namespace) -> None:
    """Fix the report files' places now, before a compactor's code can change the working
    directory."""
    for name in REPORTS:
        path = getattr(arguments, name, None)
        if path is not None:
            setattr(arguments, name, Path(os.path.abspath(path)))


def _corpus_choice(arguments: argparse.Namespace) -> tuple[Path, str]:
    """The corpus folder of `run` or `fuzz`, and why it is there."""
    if arguments.corpus is not None:
        return arguments.corpus, "--corpus"
    names = arguments.targets if hasattr(arguments, "targets") else [arguments.target]
    state = location.for_targets(names)
    return state.corpus, state.why


def run_config(arguments: argparse.Namespace, settled: Settled) -> RunConfig:
    """The run config of `run` or `fuzz` from their shared options, their profile and seed
    settled (``compactcheck.options.settle``)."""
    values = vars(arguments)
    check_options({**values, "profile": settled.profile}, "cli")
    absolute_outputs(arguments)
    corpus, why = _corpus_choice(arguments)
    transcripts: tuple[Transcript, ...] = ()
    if arguments.transcripts is not None:
        # Transcripts are message histories: only the messages view runs on them.
        arguments.view = "messages"
        transcripts = tuple(load_transcripts(arguments.transcripts))
    return from_options(
        values,
        settled,
        corpus_dir=corpus,
        corpus_why=why,
        transcripts=transcripts,
        model=model_slot(arguments),
    )
