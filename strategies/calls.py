"""A coding agent's tool calls as drawn: each made from one wide integer, numbered once placed.

A call is made before its identity is known (its id and final delay are set on a copy when the
scenario places it, by ``Ids``), so that calls are kept by drawn value and shared between cases.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Final

from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.contents import (
    MAX_SIZE_CLASS,
    command_log,
    length_of,
    read_output,
)
from compactcheck.strategies.digits import Digits
from compactcheck.strategies.plans import validation
from compactcheck.strategies.turns import ToolBatch, ToolCallSpec, ToolKind

# A coding agent's planned calls: reads, edits (as often as the other two together, so that a
# run often changes several files) and validations.
_CALL_KINDS: Final[tuple[ToolKind, ...]] = ("read", "edit", "validate", "edit")
# Outputs of one turn's routine reads together stay under this many characters: a turn of many
# reads gets short ones, so a history stays in the tens of kilobytes, rarely a few hundred.
_TURN_CHARS: Final = 64 * 1024
# How far below the turn's level each routine read sits, in rotation, so that sizes vary.
_ROUTINE_SPREAD: Final = (0, 2, 1, 3)


def _arguments(**values: str) -> str:
    return _encoded(tuple(values.items()))


@lru_cache(maxsize=256)
def _encoded(items: tuple[tuple[str, str], ...]) -> str:
    # A few dozen distinct argument objects in all (paths, commands, patterns): each encoded once.
    return json.dumps(dict(items), separators=(",", ":"))


def _size_class(digits: Digits) -> int:
    """A size class from the digits left over: the top of a wide draw, which leans to zero."""
    return min(MAX_SIZE_CLASS, digits.value.bit_length())


# Kept by drawn value: a run's calls repeat (Hypothesis draws small and copied values often; in
# 300 cases about five calls in six were made before), and a call is immutable, its id and final
# delay set on a copy (Ids). Its outputs are a few kilobytes at most (the digits left for the
# size class are few), so the cache stays small.
@lru_cache(maxsize=2048)
def tool_call(value: int) -> ToolCallSpec:
    """A call before its identity is known; ``delay`` holds its raw timing digits for Ids."""
    digits = Digits(value)
    kind = digits.pick(_CALL_KINDS)
    is_error = digits.chance(1, 4)
    timing = digits.take(2 * 16)
    error = digits.pick(words.ERRORS)
    path = digits.pick(words.PATHS)
    variant = value % len(words.BODY_WORDS)
    if kind == "read":
        name = digits.pick(words.READ_TOOLS)
        output = error if is_error else digits.pick(words.OUTPUTS)
        if not is_error:
            output = read_output(name, path, _size_class(digits), variant) or output
        return ToolCallSpec("", name, _arguments(path=path), output, is_error, delay=timing)
    if kind == "edit":
        output = error if is_error else f"wrote {path}"
        return ToolCallSpec(
            "",
            "edit_file",
            _arguments(path=path),
            output,
            is_error,
            kind="edit",
            delay=timing,
            path=path,
        )
    command = digits.pick(words.COMMANDS)
    passed = digits.chance(1, 2)
    summary = digits.pick(words.VALIDATION_SUMMARIES)
    record = validation(command, passed, summary)
    log = command_log(command, _size_class(digits), variant)
    output = error if is_error else (f"{log}\n" if log else "") + f"{command}: {summary}"
    return ToolCallSpec(
        "",
        "run_command",
        _arguments(command=command),
        output,
        is_error,
        kind="validate",
        delay=timing,
        validation=record,
    )


@lru_cache(maxsize=1024)
def routine_reads(turn_index: int, count: int, level: int) -> tuple[ToolBatch, ...]:
    """A turn's routine reads: ``count`` read-only calls, answered at once, changing nothing."""
    cap = max(
        (size for size in range(MAX_SIZE_CLASS + 1) if count * length_of(size) <= _TURN_CHARS),
        default=0,
    )
    reads = []
    for index in range(count):
        tool = words.ROUTINE_TOOLS[index % len(words.ROUTINE_TOOLS)]
        spot = turn_index + index
        size = max(0, min(cap, level - _ROUTINE_SPREAD[index % len(_ROUTINE_SPREAD)]))
        pattern = words.BODY_WORDS[spot % len(words.BODY_WORDS)]
        if tool == "list_dir":
            path = words.DIRECTORIES[spot % len(words.DIRECTORIES)]
            arguments = _arguments(path=path)
        else:
            path = words.ROUTINE_PATHS[spot % len(words.ROUTINE_PATHS)]
            arguments = (
                _arguments(pattern=pattern, path=path)
                if tool == "grep"
                else (_arguments(path=path))
            )
        output = read_output(tool, path, size, spot) or words.OUTPUTS[spot % 2]
        reads.append(ToolBatch("", (ToolCallSpec("", tool, arguments, output, False),)))
    return tuple(reads)


class Ids:
    """Hands out the ids of one scenario, in order of appearance."""

    def __init__(self) -> None:
        self.calls = 0
        self.batches = 0

    def batch(self, batch: ToolBatch, later: int) -> ToolBatch:
        """The batch with ids, each call's result due after at most ``later`` more actions.

        With ``later`` 0 every result follows its call at once.
        """
        self.batches += 1
        calls = []
        for call in batch.calls:
            self.calls += 1
            # Raw timing digits of 0 (every routine read has them) read as "at once".
            delay = _delay(call.delay, later) if call.delay else 0
            calls.append(call.identified(f"call_{self.calls}", delay))
        return ToolBatch(f"batch_{self.batches}", tuple(calls))

    def reads(self, turn_index: int, count: int, level: int) -> tuple[ToolBatch, ...]:
        """The routine reads of a turn (``routine_reads``) with ids, each answered at once."""
        reads = _identified_reads(turn_index, count, level, self.calls, self.batches)
        self.calls += count
        self.batches += count
        return reads


# Kept by the ids they start from: a turn's reads are most of a case's calls, and the same turn
# (the first one always) often starts from the same ids in another case.
@lru_cache(maxsize=1024)
def _identified_reads(
    turn_index: int, count: int, level: int, calls: int, batches: int
) -> tuple[ToolBatch, ...]:
    """Routine reads numbered on from ``calls`` calls and ``batches`` batches handed out."""
    return tuple(
        ToolBatch(
            f"batch_{batches + number}", (read.calls[0].identified(f"call_{calls + number}", 0),)
        )
        for number, read in enumerate(routine_reads(turn_index, count, level), start=1)
    )


def _delay(raw: int, later: int) -> int:
    """A call's delay from its raw timing digits, at most ``later`` actions (0: at once)."""
    timing = Digits(raw)
    late = timing.chance(1, 2) and later > 0
    return 1 + timing.take(16) % later if late else 0
