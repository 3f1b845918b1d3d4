"""A witness as the conversation it is: what the compactor was handed beside what it answered.

Pure functions from a counterexample's recorded input and output to marked messages (messages
view) or events (snapshot and session views), for the HTML renderers to lay out. A mark is only
given where the recorded data decides it; anything else is left unmarked, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue, ValidationError

from compactcheck.invariants.formats import (
    CHAT,
    FORMATS,
    HISTORY_FIELD,
    Format,
    NativeRequest,
    as_request,
    check_format,
    detect_format,
    format_of,
    parse_request,
    read,
)
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    ToolMessage,
    content_text,
    parse_messages,
)

Mark = Literal["kept", "dropped", "summarised"]
"""kept: on both sides; dropped: handed in, not answered; summarised: new in the answer."""


@dataclass(frozen=True)
class Call:
    """One tool call of an assistant message, and where its result sits on the same side."""

    id: str
    name: str
    arguments: str
    result: int | None
    """The index of the message holding its result; None when no result answers it."""


@dataclass(frozen=True)
class Bubble:
    """One message of one side, as a reader sees it."""

    index: int
    role: str
    text: str
    mark: Mark
    calls: tuple[Call, ...] = ()
    answers: str | None = None
    """The id of the call a tool result answers."""
    call_at: int | None = None
    """The index of the message holding that call; None when it is not on this side."""
    source: str = ""
    """Where the provider request holds it ("messages.2", "contents[2]", "system"), as a
    provider rule names it; "" in chat completions, where the list is the request's own."""

    @property
    def orphaned(self) -> bool:
        """A result whose call is not on its side, or a call whose result is missing."""
        if self.answers is not None and self.call_at is None:
            return True
        return any(call.result is None for call in self.calls)


@dataclass(frozen=True)
class Conversation:
    """The messages view of a witness: the input's messages and the output's, marked."""

    format: Format
    before: tuple[Bubble, ...]
    after: tuple[Bubble, ...]


@dataclass(frozen=True)
class Event:
    """One event or log record, on one line."""

    key: str
    """Its event id (snapshot view) or sequence number (session view)."""
    kind: str
    text: str
    mark: str | None = None
    """What the data says became of it, e.g. "kept" or "dropped"; None when it says nothing."""


@dataclass(frozen=True)
class EventList:
    """The snapshot or session view of a witness: events before, events or records after."""

    before: tuple[Event, ...]
    after: tuple[Event, ...]
    before_title: str
    after_title: str
    note: str
    """What the marks mean, and what they cannot tell."""


Picture = Conversation | EventList


def picture(view: str, data: JsonValue, answer: JsonValue, format: str = "") -> Picture | None:
    """The witness as a conversation or an event list; None when its shape is not one we read."""
    if view == "messages":
        return conversation(data, answer, format)
    if view == "snapshot":
        return _snapshot(data, answer)
    if view == "session":
        return _session(data, answer)
    return None


def conversation(data: JsonValue, answer: JsonValue, format: str = "") -> Conversation | None:
    """Input and output messages, each marked kept, dropped or summarised, calls tied to results.

    ``format`` is the target's wire format ('' to read it off the data's shape). A message is
    kept when an equal message (as the laws read it) is on the other side; each one matches once,
    in order, so a message repeated twice and kept once shows one kept and one dropped.
    """
    read_in = _messages(data, format)
    read_out = _messages(answer, format or (read_in[0] if read_in else ""))
    if read_in is None or read_out is None:
        return None
    (chosen, before, sources_in), (_, after, sources_out) = read_in, read_out
    matched_in: set[int] = set()
    matched_out: set[int] = set()
    for at, message in enumerate(after):
        found = next(
            (i for i, old in enumerate(before) if i not in matched_in and old == message), None
        )
        if found is not None:
            matched_in.add(found)
            matched_out.add(at)
    return Conversation(
        format=chosen,
        before=_bubbles(before, matched_in, "dropped", sources_in),
        after=_bubbles(after, matched_out, "summarised", sources_out),
    )


def reading(side: JsonValue, format: str = "") -> tuple[tuple[ChatMessage, ...], tuple[str, ...]]:
    """One side of a messages witness as the laws read it, with each message's request path.

    Empty when the side is not one we read.
    """
    found = _messages(side, format)
    return ((), ()) if found is None else (found[1], found[2])


def sources(request: NativeRequest) -> tuple[str, ...]:
    """For each message of a request's chat reading, the request's path it was read from.

    The reading splits a turn (a tool result per message) and skips what it does not read
    (thinking), so the path of the item a message begins in is found by reading prefixes.
    """
    whole = len(read(request))
    system, path = _SOURCES[format_of(request)]
    field = HISTORY_FIELD[format_of(request)]
    items = getattr(request, field)
    try:
        out: list[str] = [system] * len(read(request.model_copy(update={field: ()})))
        for index in range(len(items)):
            grown = len(read(request.model_copy(update={field: items[: index + 1]})))
            out += [path.format(index)] * (grown - len(out))
    except (ValueError, TypeError, KeyError):
        # A prefix a reading cannot take alone (say, a response whose id only a later turn
        # settles): the messages are shown without their paths rather than not at all.
        return ("",) * whole
    return tuple(out) if len(out) == whole else ("",) * whole


# Per format: the path of its system prompt and of one item of its history, spelled as that
# format's provider rules spell them (invariants/laws/messages).
_SOURCES: dict[Format, tuple[str, str]] = {
    "anthropic": ("system", "messages.{}"),
    "openai-responses": ("instructions", "input[{}]"),
    "gemini": ("systemInstruction", "contents[{}]"),
}


def _messages(
    side: JsonValue, format: str
) -> tuple[Format, tuple[ChatMessage, ...], tuple[str, ...]] | None:
    """The chat reading of one side (a request, a bare history, or either under "request"),
    with the request's path of each message ("" each in chat completions)."""
    data = side
    if isinstance(data, dict) and isinstance(data.get("request"), (dict, list)):
        data = data["request"]
    found = check_format(format) if format in FORMATS else detect_format(data)
    if found is None:
        return None
    try:
        if found == CHAT:
            listed = data.get("messages") if isinstance(data, dict) else data
            messages = parse_messages(listed)
            return found, messages, ("",) * len(messages)
        if isinstance(data, dict) and found == "anthropic":
            # The recorded input carries the drawn knobs beside the request's own fields.
            data = {key: value for key, value in data.items() if key in ("system", "messages")}
        request = parse_request(found, as_request(found, data))
        return found, read(request), sources(request)
    except (ValidationError, ValueError, TypeError, KeyError):
        return None


def _bubbles(
    messages: Sequence[ChatMessage], matched: set[int], unmatched: Mark, where: Sequence[str]
) -> tuple[Bubble, ...]:
    call_at: dict[str, int] = {}
    result_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                call_at.setdefault(call.id, index)
        elif isinstance(message, ToolMessage):
            result_at.setdefault(message.tool_call_id, index)
    out: list[Bubble] = []
    for index, message in enumerate(messages):
        mark: Mark = "kept" if index in matched else unmatched
        text = content_text(message.content)
        if isinstance(message, AssistantMessage):
            calls = tuple(
                Call(c.id, c.function.name, c.function.arguments, result_at.get(c.id))
                for c in message.tool_calls or ()
            )
            out.append(Bubble(index, message.role, text, mark, calls=calls, source=where[index]))
        elif isinstance(message, ToolMessage):
            answered = message.tool_call_id
            out.append(
                Bubble(
                    index,
                    "tool",
                    text,
                    mark,
                    answers=answered,
                    call_at=call_at.get(answered),
                    source=where[index],
                )
            )
        else:
            out.append(Bubble(index, message.role, text, mark, source=where[index]))
    return tuple(out)


def _records(value: JsonValue) -> list[dict[str, JsonValue]] | None:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        return None
    return [item for item in value if isinstance(item, dict)]


def _summary(payload: JsonValue) -> str:
    """The first string of an event's payload or data, the one a reader recognises it by."""
    if isinstance(payload, str):
        return payload
    if isinstance(payload, dict):
        for value in payload.values():
            if isinstance(value, str) and value:
                return value
    return ""


def _snapshot(data: JsonValue, answer: JsonValue) -> EventList | None:
    """The events handed in, kept (in the raw tail) or dropped (folded into the snapshot)."""
    events = _records(data.get("events")) if isinstance(data, dict) else None
    tail = _records(answer.get("rawTail")) if isinstance(answer, dict) else None
    if events is None:
        return None
    kept = {str(event.get("eventId")) for event in tail or []}

    def row(event: dict[str, JsonValue], mark: str | None) -> Event:
        key = str(event.get("eventId", "?"))
        return Event(key, str(event.get("type", "?")), _summary(event.get("payload")), mark)

    if tail is None:
        before = tuple(row(event, None) for event in events)
        note = "The answer holds no raw tail, so no event is marked."
    else:
        before = tuple(
            row(event, "kept" if str(event.get("eventId")) in kept else "dropped")
            for event in events
        )
        note = (
            "kept: the event is in the answer's raw tail (by event id); dropped: it is not, so "
            "only the snapshot (raw JSON below) can carry what it said."
        )
    after = tuple(row(event, None) for event in tail or [])
    return EventList(before, after, "events handed in", "raw tail answered", note)


def _session(data: JsonValue, answer: JsonValue) -> EventList | None:
    """The log handed in, and the records the compactor appended (what each one covers)."""
    log = _records(data.get("log")) if isinstance(data, dict) else None
    appended = _records(answer.get("appended")) if isinstance(answer, dict) else None
    if log is None or appended is None:
        return None
    covered: dict[str, str] = {}
    for record in appended:
        sources = record.get("sourceEventSeqs")
        if isinstance(sources, list):
            for seq in sources:
                covered.setdefault(str(seq), f"covered by seq {record.get('seq', '?')}")

    def row(record: dict[str, JsonValue], mark: str | None) -> Event:
        return Event(
            str(record.get("seq", "?")), str(record.get("type", "?")), _summary(record.get("data")),
            mark,
        )  # fmt: skip

    before = tuple(row(record, covered.get(str(record.get("seq")))) for record in log)
    after = tuple(row(record, "appended") for record in appended)
    note = (
        "The log is append-only: nothing is dropped from it. covered by seq N: an appended "
        "record names it among its source events (sourceEventSeqs)."
    )
    return EventList(before, after, "log handed in", "records appended", note)


__all__ = [
    "Bubble",
    "Call",
    "Conversation",
    "Event",
    "EventList",
    "Mark",
    "Picture",
    "conversation",
    "picture",
    "reading",
    "sources",
]
