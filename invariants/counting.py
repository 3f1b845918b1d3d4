"""Budget counters: what a declared budget is counted in, built in or the user's own.

A counter is named by text, so that a budget travels in a report, a corpus entry and a worker's
config as it is:

- ``messages``: the number of messages;
- ``characters``: characters of each message's content plus its tool calls' arguments;
- ``approx_tokens``: those characters / 4, rounded up; a rough stand-in for a tokenizer (no
  vocabulary, no download), not any provider's count;
- ``tokens:ENCODING``: tokens of an OpenAI encoding (``o200k_base``, ``cl100k_base``, ...) by
  the ``bpe-openai`` tokenizer, whose vocabularies ship inside its wheel (the ``tokens`` extra);
- ``py:module:attribute``: a counter of the user's own, a function that takes one text and
  returns its size in tokens (a whole number). It is handed each message's content and each of
  its tool calls' arguments in turn, and the message list measures the sum, so that a provider's
  tokenizer serves as it is (``lambda text: len(encoding.encode(text))``).

A counter given as a Python function (``Budget(counter=fn)``) is named ``py:module:qualname`` and
kept in this process, so that one defined in a script or a test works too.

Resolving a ``py:`` or ``tokens:`` name imports the module it names: the one place the laws run
code of the user's besides the compactor, done once per name.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from compactcheck.invariants.errors import CompactcheckError

BUILT_IN = ("messages", "characters", "approx_tokens")
# What a counter of the user's own is: one text in, its size out.
TextCounter = Callable[[str], int]
ENCODINGS_HELP = "o200k_base, cl100k_base, p50k_base, r50k_base"
NAMES_HELP = (
    "messages, characters, approx_tokens (characters / 4, rounded up), tokens:ENCODING (an OpenAI "
    f"encoding: {ENCODINGS_HELP}; the tokens extra) or py:module:function (your own: it takes a "
    "text and returns its size)"
)

# Every counter resolved in this process, by name: a function given in code, or one imported.
_RESOLVED: dict[str, TextCounter] = {}


class CounterError(CompactcheckError):
    """A budget counter that names nothing that counts, or that did not count (one line)."""


def counter_name(given: Any) -> str:
    """The name of a counter given as text or as a function (kept in this process); a
    ``CounterError`` if it names nothing that counts."""
    if callable(given) and not isinstance(given, str):
        module = getattr(given, "__module__", None) or "__main__"
        qualname = getattr(given, "__qualname__", None) or type(given).__qualname__
        name = f"py:{module}:{qualname}"
        # Two different functions of one name (two lambdas) each keep their own.
        if _RESOLVED.get(name, given) is not given:
            name = f"{name}#{id(given)}"
        _RESOLVED[name] = _checked(name, given)
        return name
    if not isinstance(given, str):
        raise CounterError(f"budget counter: expected {NAMES_HELP}; found {given!r}")
    if given not in BUILT_IN:
        text_counter(given)
    return given


def text_counter(name: str) -> TextCounter | None:
    """The function that counts a text for counter ``name``; None for a built-in counter."""
    if name in BUILT_IN:
        return None
    found = _RESOLVED.get(name)
    if found is None:
        found = _RESOLVED[name] = _checked(name, _resolve(name))
    return found


def _resolve(name: str) -> TextCounter:
    if name.startswith("tokens:"):
        return _encoding(name.removeprefix("tokens:"))
    module_part, _, attribute = name.removeprefix("py:").rpartition(":")
    if not name.startswith("py:") or not module_part or not attribute:
        raise CounterError(f"unknown budget counter {name!r}; expected {NAMES_HELP}")
    if "#" in attribute or "<" in attribute:
        raise CounterError(
            f"budget counter {name}: a function given in code is known only to the process it was "
            "given in; define it at the top level of a module and name it py:module:function"
        )
    # As `python -m` finds a module: from the working directory first.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        found: Any = importlib.import_module(module_part)
        for part in attribute.split("."):
            found = getattr(found, part)
    except ImportError as error:
        raise CounterError(f"budget counter {name}: cannot import {module_part}: {error}") from None
    except AttributeError:
        raise CounterError(f"budget counter {name}: {module_part} has no {attribute}") from None
    if not callable(found):
        raise CounterError(f"budget counter {name}: {attribute} is not a function")
    return found  # type: ignore[no-any-return]


def _encoding(encoding: str) -> TextCounter:
    try:
        import bpe_openai  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise CounterError(
            f"budget counter tokens:{encoding} needs the tokenizer of the tokens extra: "
            "pip install 'compactcheck[tokens]'"
        ) from None
    try:
        tokenizer = bpe_openai.get_encoding(encoding)
    except Exception:
        raise CounterError(
            f"budget counter tokens:{encoding}: unknown encoding; known: {ENCODINGS_HELP}"
        ) from None

    def count(text: str) -> int:
        return len(tokenizer.encode_ordinary(text))

    return count


def _checked(name: str, counter: TextCounter) -> TextCounter:
    """``counter`` once it counted a sample text as a counter must; a ``CounterError`` else."""
    count(name, counter, "compactcheck")
    return counter


def count(name: str, counter: TextCounter, text: str) -> int:
    """What ``counter`` says ``text`` measures; a ``CounterError`` if it fails or says no size."""
    try:
        size = counter(text)
    except Exception as error:
        raise CounterError(
            f"budget counter {name} failed on a text of {len(text)} characters "
            f"({type(error).__name__}: {error}); a counter takes one text (str) and returns "
            "its size"
        ) from None
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise CounterError(
            f"budget counter {name} returned {size!r} for a text of {len(text)} characters; "
            "a counter returns a whole number of 0 or more"
        )
    return size


def measure(texts_per_message: Iterable[Iterable[str]], name: str) -> int:
    """The size of messages, each given as its texts (content, tool call arguments), under
    counter ``name``."""
    own = text_counter(name)
    if name == "messages":
        return sum(1 for _ in texts_per_message)
    if own is not None:
        return sum(count(name, own, text) for texts in texts_per_message for text in texts if text)
    chars = sum(len(text) for texts in texts_per_message for text in texts)
    return chars if name == "characters" else math.ceil(chars / 4)
