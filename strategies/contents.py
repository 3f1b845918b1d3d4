"""Bulky contents (file bodies, logs, listings, long instructions) expanded from a size class.

A size class is one small drawn integer: 0 keeps the short text of the vocabulary, and each class
above doubles the length, from 64 characters at class 1 to 64 KiB at ``MAX_SIZE_CLASS``. The text
is a pure function of the class and of what the call names (tool, path, command), so a long
history costs no more draws than a short one, and shrinking the class shortens the text.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Final

from compactcheck.strategies import vocabulary as words

MAX_SIZE_CLASS: Final = 11
# Contents of one kind and name come in this many wordings, so that two reads can differ.
VARIANTS: Final = 4
# Enough for every (kind, name, variant) a scenario can name: about 150 strings of 64 KiB.
_CACHE_SIZE: Final = 256

Chunk = Callable[[int, str, str, str], str]


def length_of(size_class: int) -> int:
    """The length in characters of a text of one size class (0: the vocabulary's own text)."""
    return 0 if size_class <= 0 else 32 << min(size_class, MAX_SIZE_CLASS)


def _filled(chunk: Chunk, variant: int, length: int) -> str:
    """Chunks 0, 1, 2, ... joined by newlines up to ``length`` characters, cut there."""
    pool = words.BODY_WORDS
    size = len(pool)
    parts: list[str] = []
    total = 0
    index = 0
    while total < length:
        # Three words that move at different paces, so neighbouring chunks differ.
        first = pool[(variant + index) % size]
        second = pool[(variant + 5 * index + 7) % size]
        third = pool[(variant + 11 * index + 3) % size]
        part = chunk(index, first, second, third)
        parts.append(part)
        total += len(part) + 1
        index += 1
    return "\n".join(parts)[:length]


def _python(index: int, first: str, second: str, third: str) -> str:
    return (
        f"def {first}_{second}_{index}({third}):\n"
        f'    """Return the {second} of a {third}."""\n'
        f"    if {third} is None:\n"
        f'        raise ValueError("no {third} given")\n'
        f"    return {third}.{first}_{second}\n"
    )


def _markdown(index: int, first: str, second: str, third: str) -> str:
    return (
        f"## The {first} {second} (part {index + 1})\n\n"
        f"The {first} step reads each {second} and writes one {third} per row.\n"
    )


def _listing(index: int, first: str, second: str, third: str) -> str:
    del third
    return f"{first}_{second}_{index}.py    {(index * 37 + len(first) * 101) % 9000 + 120} bytes"


def _search(index: int, first: str, second: str, third: str) -> str:
    return (
        f"[{index + 1}] Handling a {first} {second} with a {third}\n"
        f"    https://docs.example.org/{first}/{second}_{index}.html"
    )


def _test_line(index: int, first: str, second: str, third: str) -> str:
    return f"tests/test_{first}.py::test_{second}_{third}_{index} PASSED"


def _check_line(index: int, first: str, second: str, third: str) -> str:
    del third
    return f"checked src/{first}/{second}_{index}.py"


def _ticket_line(index: int, first: str, second: str, third: str) -> str:
    return (
        f"- The {first} {second} job fails when a {third} is empty (ticket {index + 100}); "
        f"keep the {second} order as it is."
    )


def _grep(path: str) -> Chunk:
    def match(index: int, first: str, second: str, third: str) -> str:
        return f"{path}:{index * 7 + 3}:    return {third}.{first}_{second}"

    return match


def _chunk(kind: str, name: str) -> Chunk:
    """How one kind of content is made, for a tool and what it names (path or command)."""
    if kind == "instruction":
        return _ticket_line
    if kind == "log":
        return _test_line if name.startswith("pytest") else _check_line
    if kind == "read_file":
        return _python if name.endswith(".py") else _markdown
    if kind == "grep":
        return _grep(name)
    if kind == "web_search":
        return _search
    return _listing


@lru_cache(maxsize=_CACHE_SIZE)
def _longest(kind: str, name: str, variant: int) -> str:
    # Every length is a prefix of the longest text: one string per content, however many sizes.
    return _filled(_chunk(kind, name), variant, length_of(MAX_SIZE_CLASS))


def _text(kind: str, name: str, size_class: int, variant: int) -> str:
    length = length_of(size_class)
    return _longest(kind, name, variant % VARIANTS)[:length] if length else ""


def read_output(tool: str, path: str, size_class: int, variant: int) -> str:
    """What a read-only tool answers about a path, of one size class ("" at class 0)."""
    return _text(tool, path, size_class, variant)


def command_log(command: str, size_class: int, variant: int) -> str:
    """The log a validation command prints before its summary, of one size class."""
    return _text("log", command, size_class, variant)


def instruction(size_class: int, variant: int) -> str:
    """Context a user pastes under an instruction (a ticket's notes), of one size class."""
    notes = _text("instruction", "", size_class, variant)
    return f"Notes from the ticket:\n{notes}" if notes else ""
