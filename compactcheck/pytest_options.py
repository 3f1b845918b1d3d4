"""The pytest plugin's options: one table of the CLI's run options, and how their values are read.

Each row is offered as the option ``--compactcheck-NAME``, the ini value ``compactcheck_NAME`` and,
where it may differ from one target to the next, the marker keyword ``NAME`` (the marker wins over
the option, the option over the ini value).

This module is loaded by every pytest session of every project that has compactcheck installed,
used or not: it imports pytest and the standard library only. A validator imports what it checks
against when it runs, which is when a value is given; what the table shows in ``--help`` and
takes as defaults is written out here, and a test keeps it equal to its source.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Written out, not imported (see the docstring); tests/compactcheck/test_plugin_idle.py compares
# each with the constant it copies.
VIEWS = ("snapshot", "session", "messages")  # compactcheck.invariants.VIEWS
WIRE_FORMATS = (
    "openai-chat",
    "anthropic",
    "openai-responses",
    "gemini",
)  # compactcheck.invariants.formats
CHAT = "openai-chat"  # compactcheck.invariants.formats.CHAT
DEFAULT_TIMEOUT = 30.0  # compactcheck.targets.calls
DEFAULT_MEMORY_LIMIT_MB = 4096  # compactcheck.targets.calls
MALFORMED = ("late-results", "pending-calls")  # compactcheck.harness.MALFORMED
REDIS_URL_VARIABLE = "COMPACTCHECK_REDIS_URL"  # compactcheck.scale.database
MODEL_NAMES_HELP = (  # compactcheck.models.slot.NAMES_HELP
    "echo, paraphrase, lossy, openai:MODEL, anthropic:MODEL or py:path.py:attribute"
)
LEVELS = ("1", "2", "3")  # compactcheck.invariants.levels.LEVELS
# Where an xdist worker ships its reports to the controller (``workeroutput``).
WORKER_KEY = "compactcheck_reports"


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(choices)}, found {text!r}"
            )
        return text

    return parse


def _flag(text: str) -> bool:
    """An ini value or marker keyword of a flag: true or false."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, found {text!r}")


def _csv(text: str) -> list[str]:
    from compactcheck.cli.options import csv

    return csv(text)


def _positive(text: str) -> int:
    from compactcheck.cli.options import positive

    return positive(text)


def _natural(text: str) -> int:
    from compactcheck.cli.options import natural

    return natural(text)


def _seconds(text: str) -> float:
    from compactcheck.cli.options import seconds

    return seconds(text)


def _level(text: str) -> int:
    return int(_choice(*LEVELS)(text))


def _malformed(text: str) -> tuple[str, ...]:
    from compactcheck.harness import MALFORMED as KNOWN

    names = tuple(_csv(text))
    unknown = [name for name in names if name not in KNOWN]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown malformed-input scenario(s) {', '.join(unknown) or repr(text)}; "
            f"known: {', '.join(KNOWN)}"
        )
    return names


def _model(text: str) -> str:
    from compactcheck.base.errors import CompactcheckError, one_line
    from compactcheck.models import check_name

    try:
        return check_name(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None


@dataclass(frozen=True)
class RunOption:
    """One run option of the CLI as the plugin offers it: option, ini value, marker keyword."""

    # The CLI's option (``--max-examples``); the plugin's names derive from it.
    cli: str
    # What it sets: a field of RunConfig or Calls, or what the plugin does with it.
    sets: str
    # A text (of the command line or the ini file) as its value; ArgumentTypeError if it is not.
    parse: Callable[[str], Any]
    default: Any
    help: str
    # Also a keyword of the marker: it may differ from one target to the next. The others
    # hold for the whole session (one corpus, one model ledger, one report).
    marker: bool = True
    flag: bool = False
    metavar: str | None = None

    @property
    def key(self) -> str:
        """The marker keyword, and the key of the option's value: ``max_examples``."""
        return self.cli.removeprefix("--").replace("-", "_")

    @property
    def option(self) -> str:
        """The plugin's command-line option: ``--compactcheck-max-examples``."""
        return "--compactcheck-" + self.cli.removeprefix("--")

    @property
    def ini(self) -> str:
        """The plugin's ini value: ``compactcheck_max_examples``."""
        return "compactcheck_" + self.key


# Every run option of `compactcheck run` (compactcheck/cli/options.py), in its order. The test
# of the plugin checks that each option of `run` is here or in NOT_OFFERED.
OPTIONS: tuple[RunOption, ...] = (
    RunOption("--view", "the view", _choice(*VIEWS), None, "only this view"),
    RunOption(
        "--transcripts",
        "RunConfig.transcripts",
        Path,
        None,
        "recorded transcripts (a file or folder) to draw histories from instead of generated "
        "ones; messages view (a marker's or ini value's relative path is read from the rootdir)",
        metavar="PATH",
    ),
    RunOption("--invariants", "RunConfig.include", _csv, None, "only these invariant ids (a,b)"),
    RunOption("--exclude-invariants", "RunConfig.exclude", _csv, (), "skip these invariant ids"),
    RunOption("--max-examples", "RunConfig.max_examples", _positive, 100, "histories per target"),
    RunOption("--rounds", "RunConfig.rounds", _positive, 3, "most compactions per history"),
    RunOption(
        "--format",
        "RunConfig.format",
        _choice(*WIRE_FORMATS),
        CHAT,
        "wire format of the messages view (as run --format)",
    ),
    RunOption(
        "--seed", "RunConfig.seed", int, 0, "run seed (default 0: a test run is reproducible)"
    ),
    RunOption("--timeout", "Calls.timeout", _seconds, DEFAULT_TIMEOUT, "seconds per backend call"),
    RunOption(
        "--in-process",
        "Calls.in_process",
        _flag,
        False,
        "run py: compactors in the test process (faster; a crash there ends the session); by "
        "default each runs in a worker process of its own",
        flag=True,
    ),
    RunOption(
        "--memory-limit",
        "Calls.memory_limit_mb",
        _natural,
        DEFAULT_MEMORY_LIMIT_MB,
        "address space of a py: compactor's worker process (0: no limit)",
        metavar="MB",
    ),
    RunOption(
        "--budget",
        "RunConfig.budget.limit",
        _positive,
        None,
        "declared size limit of compacted messages, counted as the counter option says",
    ),
    RunOption(
        "--counter",
        "RunConfig.budget.counter",
        _choice("messages", "characters", "approx_tokens"),
        "approx_tokens",
        "how the budget is counted",
    ),
    RunOption(
        "--verbatim",
        "RunConfig.reading",
        _flag,
        False,
        "messages view: a goal, constraint or must-keep fact survives only as its exact text",
        flag=True,
    ),
    RunOption(
        "--malformed",
        "RunConfig.malformed",
        _malformed,
        (),
        f"also generate histories a provider would reject: {', '.join(MALFORMED)}",
        metavar="NAME[,NAME]",
    ),
    RunOption(
        "--min-exercised",
        "RunConfig.min_exercised",
        _natural,
        5,
        "keep exploring until every applicable law was exercised this often (0: no extra)",
    ),
    RunOption(
        "--max-total-examples",
        "RunConfig.max_total_examples",
        _positive,
        None,
        "the cap of that exploring, in histories (default: 5 x max examples)",
    ),
    RunOption(
        "--no-shrink",
        "RunConfig.shrink",
        _flag,
        False,
        "report failing histories as found, without shrinking them",
        flag=True,
    ),
    RunOption(
        "--corpus",
        "RunConfig.corpus_dir",
        Path,
        None,
        "crash corpus folder (default: .compactcheck/corpus in the rootdir)",
        marker=False,
        metavar="PATH",
    ),
    RunOption(
        "--redis",
        "the campaign's example database",
        str,
        None,
        f"share the Hypothesis database of this session's Hypothesis tests through Redis "
        f"(default: ${REDIS_URL_VARIABLE}), multiplexed with the local folder",
        marker=False,
        metavar="URL",
    ),
    RunOption(
        "--redis-read-only",
        "the campaign's example database",
        _flag,
        False,
        "replay what the shared database holds without writing to it",
        marker=False,
        flag=True,
    ),
    RunOption(
        "--model",
        "RunConfig.model",
        _model,
        None,
        f"the model the built-in summarisers write with, as run --model: {MODEL_NAMES_HELP}",
        marker=False,
        metavar="NAME",
    ),
    RunOption(
        "--model-cache",
        "RunConfig.model.cache_dir",
        Path,
        None,
        "where model answers are recorded and replayed from (default: .compactcheck/models)",
        marker=False,
        metavar="DIR",
    ),
    RunOption(
        "--max-model-calls",
        "RunConfig.model.max_calls",
        _natural,
        None,
        "the most requests sent to the model in the session (as run --max-model-calls)",
        marker=False,
        metavar="N",
    ),
    RunOption(
        "--max-model-tokens",
        "RunConfig.model.max_tokens",
        _natural,
        None,
        "the most tokens the requests sent may take in the session",
        marker=False,
        metavar="N",
    ),
    RunOption(
        "--offline",
        "RunConfig.model.offline",
        _flag,
        False,
        "replay recorded model answers only: a request not recorded is refused, never sent",
        marker=False,
        flag=True,
    ),
    RunOption(
        "--require-level",
        "the tests that fail",
        _level,
        None,
        "fail the tests of the laws of levels 1 to N that did not hold (1 the provider accepts "
        "it, 2 the agent can carry on, 3 nothing that matters is lost); a violation of a law "
        "above N is reported as xfailed, not failed",
        metavar="N",
    ),
    *(
        RunOption(
            f"--{name}",
            "the session's reports",
            Path,
            None,
            f"write the {name} report of every target this session fuzzed",
            marker=False,
            metavar="PATH",
        )
        for name in ("json", "junit", "markdown", "html")
    ),
)

# The options of `compactcheck run` the plugin does not offer, and what it has instead.
NOT_OFFERED: Mapping[str, str] = {
    "--profile": "a test run is the ci profile (its seed fixed, no example database); "
    "--compactcheck-database and --compactcheck-redis give `hypothesis fuzz` campaigns theirs",
    "--workers": "pytest-xdist: pytest -n auto with --compactcheck-shards K",
    "--shard": "--compactcheck-shards K: one test id (and seed) per shard",
}

BY_KEY = {option.key: option for option in OPTIONS}
_NUMBERS: tuple[Callable[[str], Any], ...] = (int, _positive, _natural)
# What the marker takes besides its target.
MARKER_KEYWORDS = tuple(option.key for option in OPTIONS if option.marker)


def add_options(parser: pytest.Parser) -> None:
    """The plugin's options: the CLI's run options (``OPTIONS``) and its own few."""
    group = parser.getgroup("compactcheck", "compactcheck: fuzz context compactors")
    group.addoption(
        "--compactcheck-target",
        action="append",
        default=[],
        metavar="TARGET",
        help="a target to fuzz (repeatable): reference, mutant:NAME, py:..., cmd:...",
    )
    for option in OPTIONS:
        where = f"; marker keyword {option.key}" if option.marker else ""
        text = f"{option.help} (ini: {option.ini}{where})"
        if option.flag:
            group.addoption(option.option, action="store_true", default=None, help=text)
        else:
            group.addoption(
                option.option,
                type=option.parse,
                default=None,
                metavar=option.metavar or ("N" if option.parse in _NUMBERS else option.key.upper()),
                help=text,
            )
        parser.addini(option.ini, f"as {option.option}", default="")
    group.addoption(
        "--compactcheck-database",
        default=None,
        metavar="PATH",
        help="the Hypothesis example database folder of this session's Hypothesis tests (set "
        "as the default profile, so that `hypothesis fuzz` keeps its finds there)",
    )
    group.addoption(
        "--compactcheck-shards",
        type=int,
        default=1,
        metavar="K",
        help="cut each target's budget into K shards, one test id (and seed) each, for -n auto",
    )


def value(config: pytest.Config, option: RunOption, marked: Mapping[str, Any]) -> Any:
    """An option's value: the marker's keyword, else the command line, else the ini file."""
    if marked.get(option.key) is not None:
        given = marked[option.key]
        if option.flag and not isinstance(given, bool):
            raise pytest.UsageError(
                f"@pytest.mark.compactcheck({option.key}={given!r}): expected True or False"
            )
        text = ",".join(map(str, given)) if isinstance(given, list | tuple) else str(given)
        return _parsed(option, text, f"@pytest.mark.compactcheck({option.key}={given!r})")
    given = config.getoption(option.option)
    if given is not None:
        return given
    text = str(config.getini(option.ini) or "").strip()
    if text:
        return _parsed(option, text, f"the ini value {option.ini} = {text}")
    return option.default


def _parsed(option: RunOption, text: str, where: str) -> Any:
    try:
        return option.parse(text)
    except (argparse.ArgumentTypeError, ValueError) as error:
        raise pytest.UsageError(f"{where}: {error}") from None


def values(config: pytest.Config, marked: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The value of every run option, for one marker's keywords (none: the session's)."""
    return {option.key: value(config, option, marked or {}) for option in OPTIONS}


def marker_keywords(marker: pytest.Mark, where: str) -> dict[str, Any]:
    """The marker's keywords; a usage error for one it does not know, with the likely one."""
    if len(marker.args) != 1:
        raise pytest.UsageError(
            f"{where}: @pytest.mark.compactcheck takes one target, e.g. "
            f'@pytest.mark.compactcheck("py:mymodule:compact"); found {len(marker.args)} '
            "positional argument(s)"
        )
    for name in marker.kwargs:
        if name not in MARKER_KEYWORDS:
            close = [key for key in MARKER_KEYWORDS if key.startswith(name)][:1]
            close = close or difflib.get_close_matches(name, MARKER_KEYWORDS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            session = f"; {name} holds for the session: --compactcheck-{name.replace('_', '-')}"
            raise pytest.UsageError(
                f"{where}: @pytest.mark.compactcheck got an unknown keyword {name!r}{hint}; "
                f"known: {', '.join(MARKER_KEYWORDS)}" + (session if name in BY_KEY else "")
            )
    return dict(marker.kwargs)


def asked(config: pytest.Config) -> bool:
    """Whether this session asks for compactcheck by an option, an ini value or our Redis
    variable (a marker or fixture asks once collection meets it)."""
    if config.getoption("--compactcheck-target") or config.getoption("--compactcheck-shards") != 1:
        return True
    if config.getoption("--compactcheck-database") is not None:
        return True
    if any(config.getoption(option.option) is not None for option in OPTIONS):
        return True
    if any(str(config.getini(option.ini) or "").strip() for option in OPTIONS):
        return True
    # The campaign's shared example database, named for the whole environment.
    return bool(os.environ.get(REDIS_URL_VARIABLE, "").strip())


MARKER_LINE = (
    "compactcheck(target, **options): fuzz TARGET and give one test per invariant; options: "
    + ", ".join(MARKER_KEYWORDS)
)
