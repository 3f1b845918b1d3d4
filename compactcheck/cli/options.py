"""What the commands share: argument types, the fuzzing options, the run config, the outputs."""

from __future__ import annotations

import argparse
import difflib
import re
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from compactcheck.base.errors import CompactcheckError, ExitCode
from compactcheck.base.files import installed_version
from compactcheck.corpus import location
from compactcheck.engine.config import Profile, RunConfig
from compactcheck.engine.shards import Shard
from compactcheck.harness import MALFORMED
from compactcheck.invariants import VIEWS, Budget
from compactcheck.invariants.formats import CHAT
from compactcheck.invariants.formats import FORMATS as WIRE_FORMATS
from compactcheck.models import ModelError, ModelSlot, check_name
from compactcheck.models.slot import NAMES_HELP
from compactcheck.observed.transcripts import Transcript, TranscriptError, load_transcripts
from compactcheck.report.io import write_report, write_text
from compactcheck.report.model import Report
from compactcheck.report.render import FORMATS
from compactcheck.scale.database import (
    REDIS_URL_VARIABLE,
    DatabaseError,
    check_reachable,
    redis_url,
)
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIMEOUT, Calls

PROFILES = ("dev", "ci", "campaign")


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


def csv(text: str) -> list[str]:
    """``a, b,c`` as ``["a", "b", "c"]``."""
    return [item.strip() for item in text.split(",") if item.strip()]


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a number of at least {least}, found {value}")
    return value


def positive(text: str) -> int:
    """A whole number of at least 1."""
    return _whole(text, 1)


def natural(text: str) -> int:
    """A whole number of at least 0."""
    return _whole(text, 0)


def seconds(text: str) -> float:
    """A number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, found {text}")
    return value


def shard(text: str) -> Shard:
    """``i/M`` as a shard."""
    try:
        return Shard.parse(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _malformed(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in MALFORMED]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown malformed-input scenario(s) {', '.join(unknown) or repr(text)}; "
            f"known: {', '.join(MALFORMED)}"
        )
    return names


def reading_option(parser: argparse.ArgumentParser) -> None:
    """--verbatim: the messages laws look facts up as their exact text, not by their tokens."""
    parser.add_argument(
        "--verbatim",
        action="store_true",
        help="messages view: a goal, constraint or must-keep fact survives only as its exact "
        "text (default: its distinctive tokens, so that a summary may reword it)",
    )


def format_option(parser: argparse.ArgumentParser) -> None:
    """--format: the wire format of the messages view."""
    parser.add_argument(
        "--format",
        choices=WIRE_FORMATS,
        default=CHAT,
        help="the wire format a messages target is handed and answers: OpenAI chat "
        "completions (default), Anthropic Messages, OpenAI Responses input items or Gemini "
        "contents",
    )


def _model_name(text: str) -> str:
    try:
        return check_name(text)
    except ModelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def model_options(parser: argparse.ArgumentParser, *, replay: bool = False) -> None:
    """Which model the built-in summarisers write with, and how its calls are kept and capped."""
    parser.add_argument(
        "--model",
        type=_model_name,
        metavar="NAME",
        help=(
            "the model that writes the summaries of an entry recorded with one (default: the one "
            "it records)"
            if replay
            else "the model the built-in summarisers (langchain:summarization-middleware, "
            "langmem:summarize_messages, pydantic-ai:summarizing) write with: "
            f"{NAMES_HELP} (default: their own echo)"
        ),
    )
    parser.add_argument(
        "--model-cache",
        type=Path,
        metavar="DIR",
        help="where model answers are recorded and replayed from (default: .compactcheck/models "
        "beside the corpus)",
    )
    parser.add_argument(
        "--max-model-calls",
        type=natural,
        metavar="N",
        help="the most requests sent to the model in the whole run (every target and worker); "
        "past it a request is refused, its round skipped and the verdicts inconclusive "
        "(recorded answers do not count)",
    )
    parser.add_argument(
        "--max-model-tokens",
        type=natural,
        metavar="N",
        help="the most tokens (input and output, as the provider reports them; characters/4 "
        "for a local fake) the requests sent may take in the whole run; once reached, a request "
        "is refused as past --max-model-calls",
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="replay recorded model answers only: a request not recorded is refused, never sent",
    )


def model_slot(arguments: argparse.Namespace) -> ModelSlot | None:
    """The model slot the options name; None without one."""
    chosen = arguments.model
    if chosen is None:
        given = [
            option
            for option, value in (
                ("--model-cache", arguments.model_cache),
                ("--max-model-calls", arguments.max_model_calls),
                ("--max-model-tokens", arguments.max_model_tokens),
                ("--offline", arguments.offline or None),
            )
            if value is not None
        ]
        if given:
            raise ModelError(f"{', '.join(given)}: needs a model to apply to; name it with --model")
        return None
    return ModelSlot(
        chosen,
        cache_dir=arguments.model_cache,
        max_calls=arguments.max_model_calls,
        max_tokens=arguments.max_model_tokens,
        offline=arguments.offline,
    )


def call_options(parser: argparse.ArgumentParser) -> None:
    """How a target's calls are made: --timeout, --in-process, --memory-limit."""
    parser.add_argument(
        "--timeout", type=seconds, default=DEFAULT_TIMEOUT, help="seconds per backend call"
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run py: compactors in this process (faster, for trusted code: a crash, exit or "
        "hang there ends the run); by default each runs in a worker process of its own",
    )
    parser.add_argument(
        "--memory-limit",
        type=natural,
        default=DEFAULT_MEMORY_LIMIT_MB,
        metavar="MB",
        help="address space of a py: compactor's worker process; going past it is a finding "
        f"(default {DEFAULT_MEMORY_LIMIT_MB}; 0: no limit)",
    )


def calls_of(arguments: argparse.Namespace) -> Calls:
    """The call options the user gave."""
    return Calls(
        timeout=arguments.timeout,
        in_process=arguments.in_process,
        memory_limit_mb=arguments.memory_limit,
    )


def fuzzing_options(
    parser: argparse.ArgumentParser, *, examples_help: str, default: int = 100
) -> None:
    """The options `run` and `fuzz` share."""
    parser.add_argument("--view", choices=VIEWS, help="only this view")
    parser.add_argument(
        "--transcripts",
        type=Path,
        metavar="PATH",
        help="recorded transcripts (a file or folder) to draw histories from, instead of "
        "generated ones; messages view (see the README for the formats read)",
    )
    parser.add_argument("--invariants", type=csv, help="only these invariant ids (a,b,c)")
    parser.add_argument("--exclude-invariants", type=csv, default=[], help="skip these ids")
    parser.add_argument("--max-examples", type=positive, default=default, help=examples_help)
    parser.add_argument("--rounds", type=positive, default=3, help="most compactions per history")
    format_option(parser)
    parser.add_argument("--seed", type=int, help="run seed (default: random in dev, 0 in ci)")
    call_options(parser)
    parser.add_argument("--budget", type=positive, help="declared size limit of compacted messages")
    parser.add_argument(
        "--counter",
        choices=("messages", "characters", "approx_tokens"),
        default="approx_tokens",
        help="how --budget is counted",
    )
    reading_option(parser)
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
        type=natural,
        default=5,
        help="keep exploring past --max-examples until every applicable law was exercised this "
        "often (0: no extra exploring)",
    )
    parser.add_argument(
        "--max-total-examples",
        type=positive,
        help="the cap of that exploring, in histories (default: 5 x --max-examples)",
    )
    parser.add_argument(
        "--no-shrink",
        action="store_true",
        help="report failing histories as found, without shrinking them",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="PATH",
        help="crash corpus folder (default: .compactcheck/corpus at the root of the project the "
        "target's code belongs to; the run says which folder it chose); the example database "
        "goes beside it",
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
    model_options(parser)


def outputs(parser: argparse.ArgumentParser, json_default: Path | None = None) -> None:
    """The report files a command can write."""
    for name in ("json", "junit", "markdown", "html"):
        default = json_default if name == "json" else None
        parser.add_argument(
            f"--{name}", type=Path, metavar="PATH", default=default, help=f"write a {name} report"
        )


def write_outputs(report: Report, arguments: argparse.Namespace, *, json: bool = True) -> None:
    """Write every report file asked for (the JSON one only where ``json``)."""
    if json and arguments.json is not None:
        write_report(report, arguments.json)
    for name in ("junit", "markdown", "html"):
        path = getattr(arguments, name)
        if path is not None:
            write_text(path, FORMATS[name](report))


def _corpus_choice(arguments: argparse.Namespace) -> tuple[Path, str]:
    """The corpus folder of `run` or `fuzz`, and why it is there."""
    if arguments.corpus is not None:
        return arguments.corpus, "--corpus"
    names = arguments.targets if hasattr(arguments, "targets") else [arguments.target]
    state = location.for_targets(names)
    return state.corpus, state.why


def run_config(arguments: argparse.Namespace, profile: Profile) -> RunConfig:
    """The run config of `run` or `fuzz` from their shared options."""
    seed = arguments.seed
    if seed is None:
        seed = 0 if profile == "ci" else secrets.randbelow(2**32)
    budget = Budget(limit=arguments.budget, counter=arguments.counter) if arguments.budget else None
    corpus, why = _corpus_choice(arguments)
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
    transcripts: tuple[Transcript, ...] = ()
    if getattr(arguments, "transcripts", None) is not None:
        if arguments.view not in (None, "messages"):
            raise TranscriptError(
                f"--transcripts feeds the messages view; --view {arguments.view} has no transcripts"
            )
        if arguments.malformed:
            raise TranscriptError("--transcripts and --malformed: a transcript is what it is")
        # Transcripts are message histories: only the messages view runs on them.
        arguments.view = "messages"
        transcripts = tuple(load_transcripts(arguments.transcripts))
    return RunConfig(
        seed=seed,
        max_examples=arguments.max_examples,
        rounds=arguments.rounds,
        profile=profile,
        include=tuple(arguments.invariants) if arguments.invariants is not None else None,
        exclude=tuple(arguments.exclude_invariants),
        corpus_dir=corpus,
        corpus_why=why,
        toolkit_version=toolkit_version(),
        budget=budget,
        shrink=not arguments.no_shrink,
        seed_given=arguments.seed is not None,
        malformed=tuple(arguments.malformed),
        min_exercised=arguments.min_exercised,
        max_total_examples=arguments.max_total_examples,
        redis_url=url,
        redis_read_only=arguments.redis_read_only,
        format=arguments.format,
        transcripts=transcripts,
        reading="verbatim" if arguments.verbatim else "tokens",
        model=model_slot(arguments),
    )
