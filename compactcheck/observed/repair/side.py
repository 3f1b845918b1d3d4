"""One side of a messages pair as the repairs read and rewrite it: a request of one format.

A side is JSON data, never edited in place: a repair builds a new side with new containers
and shares every part it did not touch. Chat completions is held as ``{"messages": [...]}``;
a provider request as its JSON data (Gemini's keys camelCase, as its model writes them). Each
side knows its chat reading (what the semantic laws read) and, for each message of that
reading, which units of the history it was read from, so that a repair told "the goal is
gone" knows which input unit to bring back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import JsonValue

from compactcheck.invariants import ChatMessage, parse_messages
from compactcheck.invariants.facts import Counter
from compactcheck.invariants.formats import (
    CHAT,
    HISTORY_FIELD,
    Format,
    NativeRequest,
    as_request,
    gemini,
    parse_request,
    read,
)
from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats import responses as openai
from compactcheck.invariants.laws.messages import message_key
from compactcheck.invariants.laws.messages.size import message_size

Unit = dict[str, Any]
"""One entry of a history: a chat message, an Anthropic message, a Responses item, a Gemini
content."""

# The request field that holds the system prompt, per format (chat holds it as messages).
SYSTEM_FIELD: dict[Format, str | None] = {
    "openai-chat": None,
    "anthropic": "system",
    "openai-responses": "instructions",
    "gemini": "systemInstruction",
}


def canonical(value: Any) -> str:
    """A JSON value as one comparable string (keys sorted)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Side:
    """One side of a pair: the request as JSON data, in one format."""

    format: Format
    request: dict[str, Any]

    @property
    def units(self) -> list[Unit]:
        """The history's entries, in order."""
        value = self.request.get(HISTORY_FIELD[self.format])
        return value if isinstance(value, list) else []

    def with_units(self, units: Iterable[Unit]) -> Side:
        """This side with another history (the rest of the request unchanged)."""
        return Side(self.format, {**self.request, HISTORY_FIELD[self.format]: list(units)})

    @property
    def system(self) -> Any:
        """The system prompt field's value (None when absent, and always for chat)."""
        name = SYSTEM_FIELD[self.format]
        return self.request.get(name) if name is not None else None

    def with_system(self, value: Any) -> Side:
        """This side with the system prompt field set to ``value`` (None: removed)."""
        name = SYSTEM_FIELD[self.format]
        assert name is not None
        request = {key: item for key, item in self.request.items() if key != name}
        if value is not None:
            request[name] = value
        return Side(self.format, request)

    @cached_property
    def parsed(self) -> NativeRequest | tuple[ChatMessage, ...]:
        """The side validated: chat messages, or the format's request model."""
        if self.format == CHAT:
            return parse_messages(self.units)
        return parse_request(self.format, self.request)

    @cached_property
    def reading(self) -> tuple[ChatMessage, ...]:
        """The chat messages the semantic laws read."""
        parsed = self.parsed
        return parsed if isinstance(parsed, tuple) else read(parsed)

    @cached_property
    def sources(self) -> tuple[tuple[int, ...], ...] | None:
        """For each message of the reading, the units it was read from (``()``: the system
        field); None where the reading cannot be traced (it never should be)."""
        found = _sources(self.parsed)
        return found if len(found) == len(self.reading) else None

    @cached_property
    def keys(self) -> tuple[object, ...]:
        """What makes two units the same unit: a chat message's key, else its JSON."""
        parsed = self.parsed
        if isinstance(parsed, tuple):
            return tuple(message_key(message) for message in parsed)
        return tuple(canonical(unit) for unit in self.units)

    def size(self, counter: Counter = "characters") -> int:
        """The size of the reading under a budget counter (the budget law's measure)."""
        return message_size(self.reading, counter)

    @cached_property
    def json_size(self) -> int:
        """Characters of the history and system prompt as compact JSON: what a provider is sent."""
        return len(canonical([self.system, self.units]))


def side_of(data: Any, format: Format, *, validated: bool = True) -> Side:
    """A side of a pair from what a compactor was handed or answered (a list or a request);
    ``validated`` false leaves a chat side unparsed (the caller has parsed it)."""
    if format == CHAT:
        listed = data.get("messages") if isinstance(data, dict) else data
        if isinstance(listed, tuple) and all(not isinstance(m, dict) for m in listed):
            listed = [message.to_json_data() for message in listed]
        side = Side(format, {"messages": list(listed or ())})
        if validated:
            side.parsed  # noqa: B018  # validated now: a bad side is the caller's error
        return side
    parsed = parse_request(format, as_request(format, data))
    side = Side(format, parsed.to_json_data())
    side.__dict__["parsed"] = parsed
    return side


def shaped(original: Any, side: Side) -> Any | None:
    """``side`` in the shape of ``original`` (a bare list, or a request); None when a bare
    list cannot say what the side changed (its system prompt)."""
    if isinstance(original, list | tuple):
        if SYSTEM_FIELD[side.format] is not None and side.system is not None:
            return None
        return side.units
    if side.format == CHAT:
        return {**original, "messages": side.units} if isinstance(original, dict) else side.units
    return side.request


def _sources(parsed: NativeRequest | tuple[ChatMessage, ...]) -> tuple[tuple[int, ...], ...]:
    if isinstance(parsed, tuple):
        return tuple((index,) for index in range(len(parsed)))
    if isinstance(parsed, claude.AnthropicRequest):
        return _anthropic_sources(parsed)
    if isinstance(parsed, gemini.GeminiRequest):
        return _gemini_sources(parsed)
    return _responses_sources(parsed)


def _anthropic_sources(request: claude.AnthropicRequest) -> tuple[tuple[int, ...], ...]:
    # As read_anthropic reads: a system prompt, then per message its results and its text.
    out: list[tuple[int, ...]] = [()] if request.system is not None and request.system != () else []
    for index, message in enumerate(request.messages):
        blocks = message.blocks
        texts = any(isinstance(b, claude.TextBlock) for b in blocks)
        if message.role == "assistant":
            uses = any(isinstance(b, claude.ToolUseBlock) for b in blocks)
            count = 1 if texts or uses else 0
        else:
            results = sum(isinstance(b, claude.ToolResultBlock) for b in blocks)
            count = results + (1 if texts or isinstance(message.content, str) else 0)
        out.extend([(index,)] * count)
    return tuple(out)


def _gemini_sources(request: gemini.GeminiRequest) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = [()] if request.system_instruction is not None else []
    for index, content in enumerate(request.contents):
        texts = any(p.text is not None and not p.thought for p in content.parts)
        if content.role == "model":
            calls = any(p.function_call is not None for p in content.parts)
            count = 1 if texts or calls else 0
        else:
            count = (1 if texts else 0) + sum(
                p.function_response is not None for p in content.parts
            )
        out.extend([(index,)] * count)
    return tuple(out)


def _responses_sources(request: openai.ResponsesInput) -> tuple[tuple[int, ...], ...]:
    # As read_responses reads: a run of calls is one assistant message; opaque and unknown items
    # are not read and do not end a run.
    out: list[tuple[int, ...]] = [()] if request.instructions is not None else []
    run: list[int] = []
    for index, item in enumerate(request.input):
        if isinstance(item, openai.CALL_ITEMS):
            run.append(index)
            continue
        if isinstance(item, (*openai.OPAQUE_ITEMS, openai.UnknownItem)):
            continue
        if run:
            out.append(tuple(run))
            run = []
        out.append((index,))
    if run:
        out.append(tuple(run))
    return tuple(out)


def matched(before: Side, after: Side) -> list[int | None]:
    """For each unit of ``after``, the input unit it is (leftmost, in order), or None: new."""
    positions: dict[object, list[int]] = {}
    for index, key in enumerate(before.keys):
        positions.setdefault(key, []).append(index)
    cursors: dict[object, int] = {}
    out: list[int | None] = []
    lowest = -1
    for key in after.keys:
        options = positions.get(key, [])
        cursor = cursors.get(key, 0)
        while cursor < len(options) and options[cursor] <= lowest:
            cursor += 1
        cursors[key] = cursor
        if cursor < len(options):
            lowest = options[cursor]
            out.append(lowest)
        else:
            out.append(None)
    return out


def placement(before: Side, after: Side, index: int) -> int:
    """Where input unit ``index`` goes back into ``after``: in its input order among the kept
    units, and on the side of any new units (summaries) that leaves them in a gap where input
    units were dropped."""
    kept = matched(before, after)
    low = max((j for j, at in enumerate(kept) if at is not None and at < index), default=-1)
    high = next(
        (j for j in range(low + 1, len(kept)) if (at := kept[j]) is not None and at > index),
        len(kept),
    )
    low_at = kept[low] if low >= 0 else -1
    assert low_at is not None
    # The new units between the two kept ones stand for what was dropped there: before the
    # restored unit when nothing was dropped right after it, else after it.
    return low + 1 if index - low_at <= 1 else high


def inserted(units: Sequence[Unit], at: int, new: Sequence[Unit]) -> list[Unit]:
    """``units`` with ``new`` inserted at position ``at``."""
    return [*units[:at], *new, *units[at:]]


def new_units(before: Side, after: Side) -> list[int]:
    """The positions of ``after``'s units that are no input unit (summaries, notes)."""
    return [j for j, at in enumerate(matched(before, after)) if at is None]


def data(*units: Any) -> tuple[JsonValue, ...]:
    """Units as a change's JSON record (absent ones skipped)."""
    return tuple(unit for unit in units if unit is not None)


__all__ = [
    "SYSTEM_FIELD",
    "Side",
    "Unit",
    "canonical",
    "data",
    "inserted",
    "matched",
    "new_units",
    "placement",
    "shaped",
    "side_of",
]
