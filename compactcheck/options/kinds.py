"""The kinds of value a run option takes (parsers of text), and the constants they check against.

Standard library only (the pytest plugin loads this in every session): a parser imports what it
checks against when it runs, which is when a value is given; the constants written out here are
kept equal to their sources by ``tests/compactcheck/pytest/test_plugin_idle.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, Literal

# The one default of each call's timeout (compactcheck.targets.calls takes it from here).
DEFAULT_TIMEOUT = 30.0
# Address space per isolated worker. Generous, because importing a large library reserves much
# more virtual memory than it uses; a runaway compactor still meets it long before the machine's
# out-of-memory killer would.
DEFAULT_MEMORY_LIMIT_MB = 4096
# Written out, not imported (see the docstring).
VIEWS = ("snapshot", "session", "messages")  # compactcheck.invariants.VIEWS
WIRE_FORMATS = (
    "openai-chat",
    "anthropic",
    "openai-responses",
    "gemini",
)  # compactcheck.invariants.formats
CHAT = "openai-chat"  # compactcheck.invariants.formats.CHAT
MALFORMED = ("late-results", "pending-calls")  # compactcheck.harness.MALFORMED
REDIS_URL_VARIABLE = "COMPACTCHECK_REDIS_URL"  # compactcheck.scale.database
MODEL_NAMES_HELP = (  # compactcheck.models.slot.NAMES_HELP
    "echo, paraphrase, lossy, wording, phrasing, plant-KIND (polarity, number, relax, stale, drop, "
    "invent, lapsed, narrow, hedge, member), openai:MODEL, anthropic:MODEL or py:path.py:attribute"
)
JUDGE_NAMES_HELP = (  # compactcheck.models.judge.JUDGE_NAMES
    "openai:MODEL, anthropic:MODEL or cmd:PROGRAM (a program answering one JSON line per item)"
)
LEVELS = ("1", "2", "3")  # compactcheck.invariants.levels.LEVELS
PROFILES = ("dev", "ci", "campaign")
COUNTERS = ("messages", "characters", "approx_tokens")  # compactcheck.invariants.counting.BUILT_IN
COUNTERS_HELP = (  # compactcheck.invariants.counting.NAMES_HELP
    "messages, characters, approx_tokens (characters / 4, rounded up), tokens:ENCODING (an OpenAI "
    "encoding: o200k_base, cl100k_base, p50k_base, r50k_base; the tokens extra) or "
    "py:module:function (your own: it takes a text and returns its size)"
)
REPORTS = ("json", "junit", "markdown", "html")

# The front ends: `compactcheck run`, `compactcheck.fuzz(...)`, the pytest plugin's options and
# ini values, and the keywords of its marker.
Front = Literal["cli", "library", "plugin", "marker"]
FRONTS: tuple[Front, ...] = ("cli", "library", "plugin", "marker")


class OptionError(ValueError):
    """A value, or a combination of values, that a run cannot take (one line)."""


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


def integer(text: str) -> int:
    """Any whole number (a seed)."""
    return _whole(text, -(2**63))


def seconds(text: str) -> float:
    """A number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, found {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, found {text}")
    return value


def csv(text: str) -> list[str]:
    """``a, b,c`` as ``["a", "b", "c"]``."""
    return [item.strip() for item in text.split(",") if item.strip()]


def flag(text: str) -> bool:
    """An ini value or marker keyword of a flag: true or false."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, found {text!r}")


def malformed(text: str) -> tuple[str, ...]:
    """Named malformed-input scenarios, ``a,b``."""
    names = tuple(csv(text))
    unknown = [name for name in names if name not in MALFORMED]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown malformed-input scenario(s) {', '.join(unknown) or repr(text)}; "
            f"known: {', '.join(MALFORMED)}"
        )
    return names


def model_name(text: str) -> str:
    """A model name as ``--model`` takes it."""
    from compactcheck.base.errors import CompactcheckError, one_line
    from compactcheck.models import check_name

    try:
        return check_name(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None


def judge_name(text: str) -> str:
    """A judge name as ``--judge`` takes it."""
    from compactcheck.base.errors import CompactcheckError, one_line
    from compactcheck.models.judge import check_judge

    try:
        return check_judge(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None


def counter(text: str) -> str:
    """A budget counter's name: built in, ``tokens:ENCODING`` or ``py:module:function``."""
    if text in COUNTERS:
        return text
    from compactcheck.base.errors import CompactcheckError, one_line
    from compactcheck.invariants.counting import counter_name

    try:
        return counter_name(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None


def shard(text: str) -> Any:
    """``I/M`` as a shard."""
    from compactcheck.base.errors import CompactcheckError
    from compactcheck.base.shards import Shard

    try:
        return Shard.parse(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def choice(*choices: str) -> Callable[[str], str]:
    """One of ``choices``."""

    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(choices)}, found {text!r}"
            )
        return text

    return parse


def level(text: str) -> int:
    """A conformance level, 1 to 3."""
    return int(choice(*LEVELS)(text))
