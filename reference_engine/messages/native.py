"""The reference compactor for the provider formats: the chat reference's choices, made on units.

A provider request is cut into units that must stay whole (a call turn with its results, a
reasoning item with the items it produced, anything opaque with what follows it). The chat
reference decides, on the reading of those units, what to keep (head, one summary, the recent
tail) with cuts allowed only between units; the kept units are carried byte for byte, and the
summary becomes one user message of the format. So every structural law of the format holds,
and the semantic laws hold as they do for chat completions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from compactcheck.invariants.facts import Budget
from compactcheck.invariants.formats import (
    HISTORY_FIELD,
    Format,
    NativeRequest,
    format_of,
    gemini,
    parse_request,
    read,
)
from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats import responses as openai
from compactcheck.invariants.messages import ChatMessage, content_text
from compactcheck.reference_engine.messages.compactor import (
    DEFAULT_MAX_MESSAGES,
    compact_messages,
    reference_messages,
)
from compactcheck.reference_engine.messages.cut import safe_cuts


@dataclass
class Unit:
    """Items of the history that stay together, and what the semantic laws read in them."""

    items: list[dict[str, Any]] = field(default_factory=list)
    reading: tuple[ChatMessage, ...] = ()


def _system_only(request: NativeRequest) -> NativeRequest:
    """The request with an empty history: what is read of it is its system prompt."""
    return request.model_copy(update={HISTORY_FIELD[format_of(request)]: ()})


def _read_items(
    format: Format, base: dict[str, Any], items: list[dict[str, Any]]
) -> tuple[ChatMessage, ...]:
    data = {key: value for key, value in base.items() if key not in _SYSTEM_FIELDS}
    data[HISTORY_FIELD[format]] = items
    return read(parse_request(format, data))


_SYSTEM_FIELDS = ("system", "instructions", "systemInstruction", "system_instruction")


def _groups(format: Format, request: NativeRequest) -> list[list[int]]:
    """Indexes of the history's items, grouped into the pieces that must stay together."""
    if isinstance(request, claude.AnthropicRequest):
        return _pairs(
            [
                any(isinstance(b, claude.ToolUseBlock) for b in message.blocks)
                and message.role == "assistant"
                for message in request.messages
            ]
        )
    if isinstance(request, gemini.GeminiRequest):
        return _pairs([any(p.function_call is not None for p in c.parts) for c in request.contents])
    assert isinstance(request, openai.ResponsesInput)
    return _responses_groups(request)


def _pairs(calls: Sequence[bool]) -> list[list[int]]:
    """A call turn with the turn after it (its results); every other turn alone."""
    groups: list[list[int]] = []
    index = 0
    while index < len(calls):
        if calls[index] and index + 1 < len(calls):
            groups.append([index, index + 1])
            index += 2
        else:
            groups.append([index])
            index += 1
    return groups


def _responses_groups(request: openai.ResponsesInput) -> list[list[int]]:
    groups: list[list[int]] = []
    pending: set[str] = set()
    previous: openai.Item | None = None
    # Whether the items since the last reasoning item were all the model's: the run a
    # reasoning item owns (`openai.model_made`), which stays with it whole.
    reasoned = False
    for index, item in enumerate(request.input):
        made = openai.model_made(item)
        joins = bool(groups) and (
            bool(pending)
            or isinstance(previous, openai.ReasoningItem)
            or (reasoned and made)
            or isinstance(item, openai.OUTPUT_ITEMS)
            or (isinstance(item, openai.CALL_ITEMS) and isinstance(previous, openai.CALL_ITEMS))
        )
        if joins:
            groups[-1].append(index)
        else:
            groups.append([index])
        if isinstance(item, openai.CALL_ITEMS):
            pending.add(item.call_id)
        elif isinstance(item, openai.OUTPUT_ITEMS):
            pending.discard(item.call_id)
        reasoned = isinstance(item, openai.ReasoningItem) or (reasoned and made)
        previous = item
    return groups


def units_of(format: Format, data: dict[str, Any]) -> tuple[NativeRequest, list[Unit]]:
    """The parsed request and its history cut into units, each with a reading of its own.

    A piece nothing is read in (a compaction item, a turn of thinking alone) joins the unit
    after it, so that it is kept or dropped with what it came before.
    """
    request = parse_request(format, data)
    history = data.get(HISTORY_FIELD[format]) or []
    units: list[Unit] = []
    waiting: list[dict[str, Any]] = []
    for group in _groups(format, request):
        items = [*waiting, *(history[index] for index in group)]
        reading = _read_items(format, data, items)
        if not reading:
            waiting = items
            continue
        waiting = []
        units.append(Unit(items, reading))
    if waiting:
        if units:
            units[-1].items.extend(waiting)
        else:
            units.append(Unit(waiting, ()))
    return request, units


Summary = Callable[[Format, str], dict[str, Any]]


def summary_item(format: Format, text: str) -> dict[str, Any]:
    """A summary as one user message of the format."""
    if format == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    if format == "openai-responses":
        return {"type": "message", "role": "user", "content": text}
    return {"role": "user", "parts": [{"text": text}]}


@dataclass(frozen=True)
class NativeReference:
    """The reference compactor for one provider format, on the request as JSON data."""

    format: Format
    max_messages: int = DEFAULT_MAX_MESSAGES
    budget: Budget | None = None
    summary: Summary = summary_item

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        """Compact a provider request (JSON data in, new JSON data out)."""
        request, units = units_of(self.format, data)
        system = read(_system_only(request))
        reading = [*system, *(message for unit in units for message in unit.reading)]
        # Cuts only where a unit starts (and where the chat reference allows one).
        starts = {len(system)}
        for unit in units:
            starts.add(max(starts) + len(unit.reading))
        allowed = safe_cuts(reading)
        safe = [allowed[position] and position in starts for position in range(len(reading) + 1)]
        out = compact_messages(reading, self.max_messages, self.budget, safe=safe)
        field_name = HISTORY_FIELD[self.format]
        # The chat reference hands back the very messages it keeps: the first new one is the
        # summary, and everything after it is the tail.
        head = next(
            (i for i, message in enumerate(out) if i >= len(reading) or message is not reading[i]),
            None,
        )
        if head is None:
            return {**data, field_name: [item for unit in units for item in unit.items]}
        tail = len(reading) - (len(out) - head - 1)
        kept: list[dict[str, Any]] = []
        position = len(system)
        summarised = False
        for unit in units:
            end = position + len(unit.reading)
            if end <= head or position >= tail:
                kept.extend(unit.items)
            elif not summarised:
                kept.append(self.summary(self.format, content_text(out[head].content)))
                summarised = True
            position = end
        return {**data, field_name: kept}


def reference_for(
    format: Format, budget: Budget | None = None, max_messages: int = DEFAULT_MAX_MESSAGES
) -> Callable[[Any], Any]:
    """The reference compactor of a format, as a callable on that format's JSON data."""
    if format == "openai-chat":
        return reference_messages(max_messages=max_messages, budget=budget)
    return NativeReference(format, max_messages, budget)
