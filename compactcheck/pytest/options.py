"""The pytest plugin's options: the run options table (``compactcheck.options``) as pytest has it.

Each run option the plugin offers is the option ``--compactcheck-NAME``, the ini value
``compactcheck_NAME`` and, where it may differ from one target to the next, the marker keyword
``NAME`` (the marker wins over the option, the option over the ini value).

This module is loaded by every pytest session of every project that has compactcheck installed,
used or not: it imports pytest, the standard library and the options table (standard library
only) alone.
"""

from __future__ import annotations

import argparse
import difflib
import os
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from compactcheck.options import BY_KEY as ALL_OPTIONS
from compactcheck.options import PLUGIN_ONLY, Option, OptionError, check_together, offered_by
from compactcheck.options.given import checked_in_code
from compactcheck.options.kinds import REDIS_URL_VARIABLE, integer, natural, positive

# Where an xdist worker ships its reports to the controller (``workeroutput``).
WORKER_KEY = "compactcheck_reports"
# The name the plugin's face has long given a row of its table.
RunOption = Option

# The run options the plugin offers with an ini value (its own few are added apart).
OPTIONS: tuple[Option, ...] = tuple(
    option for option in offered_by("plugin") if option.key not in PLUGIN_ONLY
)
# The options of `compactcheck run` the plugin does not offer, and what it has instead.
NOT_OFFERED: Mapping[str, str] = {
    option.cli: option.missing["plugin"]
    for option in ALL_OPTIONS.values()
    if option.cli is not None and not option.plugin
}

BY_KEY = {option.key: option for option in OPTIONS}
_NUMBERS: tuple[Callable[[str], Any], ...] = (integer, positive, natural)
# What the marker takes besides its target.
MARKER_KEYWORDS = tuple(option.key for option in OPTIONS if option.marker)


def _help(option: Option) -> str:
    return option.plugin_help or option.help


def add_options(parser: pytest.Parser) -> None:
    """The plugin's options: the CLI's run options (``OPTIONS``) and its own few."""
    group = parser.getgroup("compactcheck", "compactcheck: fuzz context compactors")
    target, database, shards = (ALL_OPTIONS[key] for key in PLUGIN_ONLY)
    group.addoption(
        target.option, action="append", default=[], metavar=target.metavar, help=target.help
    )
    for option in OPTIONS:
        where = f"; marker keyword {option.key}" if option.marker else ""
        text = f"{_help(option)} (ini: {option.ini}{where})"
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
    group.addoption(database.option, default=None, metavar=database.metavar, help=database.help)
    group.addoption(
        shards.option, type=int, default=shards.default, metavar=shards.metavar, help=shards.help
    )


def value(config: pytest.Config, option: Option, marked: Mapping[str, Any]) -> Any:
    """An option's value: the marker's keyword (checked: ``marked_values``), else the command
    line, else the ini file."""
    if marked.get(option.key) is not None:
        return marked[option.key]
    given = config.getoption(option.option)
    if given is not None:
        return given
    text = str(config.getini(option.ini) or "").strip()
    if text:
        return _parsed(option, text, f"the ini value {option.ini} = {text}")
    return option.default_for("plugin")


def marked_values(marked: Mapping[str, Any]) -> dict[str, Any]:
    """The marker's keywords as checked values, as ``fuzz()`` checks its own (a budget may be a
    number or a ``Budget``, a counter a function); a usage error naming the keyword."""
    try:
        return checked_in_code(
            marked, lambda key, given: f"@pytest.mark.compactcheck({key}={given!r})"
        )
    except OptionError as error:
        raise pytest.UsageError(str(error)) from None


def _parsed(option: Option, text: str, where: str) -> Any:
    try:
        return option.parse(text)
    except (argparse.ArgumentTypeError, ValueError) as error:
        raise pytest.UsageError(f"{where}: {error}") from None


def values(config: pytest.Config, marked: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The value of every run option, for one marker's keywords (none: the session's),
    checked as a whole (``compactcheck.options.check_together``)."""
    checked = marked_values(marked or {})
    given = {option.key: value(config, option, checked) for option in OPTIONS}
    # The plugin's own --compactcheck-shards is checked with them (it may not go with workers).
    shards = {"shards": config.getoption(ALL_OPTIONS["shards"].option)}
    try:
        check_together({**given, **shards}, "marker" if marked else "plugin")
    except OptionError as error:
        raise pytest.UsageError(str(error)) from None
    return given


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
