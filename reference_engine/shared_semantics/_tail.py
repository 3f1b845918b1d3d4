"""What the model sees after a snapshot: the raw tail, the context sources and their size."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from compactcheck.invariants import AgentEvent, AgentState, CompactionSnapshot, ContextSource
from compactcheck.invariants.canonical import MAX_SAFE_INTEGER, plain_json
from compactcheck.reference_engine.shared_semantics._design import SnapshotDesign

_ANCHOR_TYPES = ("step_started", "user_input", "tool_batch_started")


@dataclass(frozen=True)
class ToolPairs:
    """Where each tool call and result sits, by index in an event list."""

    call_index: dict[str, int]
    result_index: dict[str, int]

    @classmethod
    def of(cls, events: Sequence[AgentEvent]) -> ToolPairs:
        """Index the tool calls and results of a list of events."""
        calls: dict[str, int] = {}
        results: dict[str, int] = {}
        for index, event in enumerate(events):
            if event.type == "tool_call":
                calls[event.text("callId")] = index
            elif event.type == "tool_result":
                results[event.text("callId")] = index
        return cls(calls, results)

    def orphan_results(self, start: int) -> list[str]:
        """Call ids whose result is at or after ``start`` but whose call is before it."""
        return [
            call_id
            for call_id, index in self.result_index.items()
            if index >= start and self.call_index.get(call_id, -1) < start
        ]

    def safe_starts(self, length: int) -> list[bool]:
        """For each index, whether a tail starting there keeps every result with its call."""
        # earliest[i] = the smallest call index among results at index >= i.
        earliest = [length] * (length + 1)
        lowest = length
        by_result = {index: call_id for call_id, index in self.result_index.items()}
        for index in range(length - 1, -1, -1):
            call_id = by_result.get(index)
            if call_id is not None:
                lowest = min(lowest, self.call_index.get(call_id, -1))
            earliest[index] = lowest
        return [earliest[index] >= index for index in range(length)] + [True]


@dataclass(frozen=True)
class CompactedContext:
    """A snapshot and the raw events kept after it."""

    snapshot: CompactionSnapshot
    raw_tail: tuple[AgentEvent, ...]


def _last_anchors(events: Sequence[AgentEvent]) -> dict[str, int]:
    """Index of the last event of each anchor type."""
    found: dict[str, int] = {}
    for index in range(len(events) - 1, -1, -1):
        kind = events[index].type
        if kind in _ANCHOR_TYPES and kind not in found:
            found[kind] = index
            if len(found) == len(_ANCHOR_TYPES):
                break
    return found


def literal_boundary(
    events: Sequence[AgentEvent], snapshot: CompactionSnapshot, raw_tail_size: int
) -> int:
    """The seed's boundary: the earliest of the N-th event from the end and the three anchors."""
    # events.at(-n) in the seed; at(-0) is the first event, as is events[-0] here.
    if events and raw_tail_size <= len(events):
        last_n = events[-raw_tail_size].sequence
    else:
        last_n = snapshot.source_event_range.from_
    anchors = [events[index].sequence for index in _last_anchors(events).values()]
    return min([last_n, *anchors])


def corrected_boundary(
    events: Sequence[AgentEvent],
    snapshot: CompactionSnapshot,
    raw_tail_size: int,
    max_raw_tail: int,
) -> int:
    """A boundary that guarantees progress and never separates a tool result from its call.

    Deviations from the seed, each closing a gap of section 8 of the snapshot spec:
    - the tail is drawn only from events at or after the snapshot's range start, and always
      leaves at least one event of the range folded (progress, even with an old user input);
    - an anchor (last step start, user input or tool batch) pulls the tail back only while the
      tail stays within ``max_raw_tail`` events, so an old anchor cannot keep the whole history;
    - a tail that would start between a tool call and its result moves back to include the
      call and its batch (even past ``max_raw_tail``: pairing outranks size), or forward past
      the result when moving back would leave nothing folded.
    """
    start_sequence = snapshot.source_event_range.from_
    window = [event for event in events if event.sequence >= start_sequence]
    count = len(window)
    if count == 0:
        return snapshot.source_event_range.to + 1
    limit = max(0, min(max_raw_tail, count - 1))
    start = count - min(raw_tail_size, limit)
    for anchor in _last_anchors(window).values():
        if anchor < start and count - anchor <= limit:
            start = anchor
    pairs = ToolPairs.of(window)
    safe = pairs.safe_starts(count)
    if not safe[start]:
        back = start
        while back >= 0 and not safe[back]:
            back = min(pairs.call_index.get(call_id, -1) for call_id in pairs.orphan_results(back))
        if back >= 1:
            # Pairing outranks the size ceiling: keep recent results with their calls, as long
            # as at least one event is still folded.
            start = _batch_start(window, back)
        else:
            while not safe[start]:
                start += 1
    return window[start].sequence if start < count else window[-1].sequence + 1


def _batch_start(window: Sequence[AgentEvent], start: int) -> int:
    """Move a tail start at a tool call back over the earlier calls and header of its batch."""
    batch = window[start].payload.get("batchId")
    while start > 1:
        previous = window[start - 1]
        if previous.type in ("tool_call", "tool_batch_started") and (
            previous.payload.get("batchId") == batch
        ):
            start -= 1
        else:
            break
    return start


def project(
    snapshot: CompactionSnapshot,
    events: Sequence[AgentEvent],
    raw_tail_size: int,
    design: SnapshotDesign = SnapshotDesign.CORRECTED,
    max_raw_tail: int | None = None,
) -> CompactedContext:
    """The snapshot and the raw tail the model sees after compaction."""
    if design is SnapshotDesign.LITERAL:
        boundary = literal_boundary(events, snapshot, raw_tail_size)
    else:
        ceiling = max_raw_tail if max_raw_tail is not None else 2 * raw_tail_size
        boundary = corrected_boundary(events, snapshot, raw_tail_size, ceiling)
    return CompactedContext(
        snapshot, tuple(event for event in events if event.sequence >= boundary)
    )


# One encoder for every source: ``json.dumps`` with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def _compact_json(data: object) -> str:
    return _ENCODER.encode(data)


def _events_chars(events: Iterable[AgentEvent]) -> int:
    """The summed length of events' context source contents (``event_source``), without them.

    Pydantic's own JSON writer is several times faster than encoding the event's JSON data, and
    writes the same text for an event whose payload is ``plain_json``: exact JSON types without
    floats (it writes some in other forms, ``0.00001`` for ``1e-05``) and with safe integers
    (the encoder refuses one too long for ``str``). Those events are written together as one
    compact JSON array, whose brackets and commas are then taken off (a call per event cost a
    third more); the encoder measures the others. A string pydantic cannot write as UTF-8 (a
    lone surrogate) makes it raise, and then each event is measured on its own.
    """
    total = 0
    written: list[AgentEvent] = []
    for event in events:
        if _writes_alike(event):
            written.append(event)
        else:
            total += len(_compact_json(event.to_json_data()))
    if not written:
        return total
    try:
        text = _EVENT_LIST.dump_json(written, by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        return total + sum(_event_chars(event) for event in written)
    # "[" + the events joined by "," + "]"; UTF-8 bytes count as characters where all are ASCII.
    chars = len(text) if text.isascii() else len(text.decode("utf-8"))
    return total + chars - len(written) - 1


def _event_chars(event: AgentEvent) -> int:
    """One event's length, for an event ``_writes_alike`` passes (pydantic's text or, where it
    cannot write it, the encoder's)."""
    try:
        text = _EVENT_SERIALIZER.to_json(event, by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        return len(_compact_json(event.to_json_data()))
    return len(text.decode("utf-8"))


def _writes_alike(event: AgentEvent) -> bool:
    """Whether pydantic writes an event's JSON as the encoder does (see ``_events_chars``)."""
    sequence = event.sequence
    try:
        return (
            type(event) is AgentEvent
            and type(sequence) is int
            and -MAX_SAFE_INTEGER <= sequence <= MAX_SAFE_INTEGER
            and plain_json(event.payload)
        )
    except RecursionError:
        return False


# The serializer ``to_json_data`` calls, writing JSON text instead of data; and the same for a
# list of events, written as one JSON array.
_EVENT_SERIALIZER = AgentEvent.__pydantic_serializer__
_EVENT_LIST = TypeAdapter(list[AgentEvent])


def event_source(event: AgentEvent) -> ContextSource:
    """One raw-tail event as a context source."""
    return ContextSource(
        id=f"event:{event.event_id}",
        kind="agent_event",
        label=event.type,
        content=_compact_json(event.to_json_data()),
        priority=50,
    )


def context_sources(context: CompactedContext) -> list[ContextSource]:
    """The snapshot first ("Verified task memory", priority 95), then each raw-tail event."""
    snapshot_source = ContextSource(
        id=f"compaction:{context.snapshot.id}",
        kind="compaction_snapshot",
        label="Verified task memory",
        content=_compact_json(context.snapshot.to_json_data()),
        priority=95,
    )
    return [snapshot_source, *(event_source(event) for event in context.raw_tail)]


def tail_orphans(raw_tail: Sequence[AgentEvent]) -> list[str]:
    """Call ids whose result is in the tail but whose call is not."""
    return ToolPairs.of(raw_tail).orphan_results(0)


def assembled_chars(context: CompactedContext) -> int:
    """Characters of every context source: the size the progress rule compares."""
    snapshot = len(_compact_json(context.snapshot.to_json_data()))
    return snapshot + _events_chars(context.raw_tail)


def context_chars(
    state: AgentState,
    events: Sequence[AgentEvent],
    raw_tail_size: int,
    design: SnapshotDesign = SnapshotDesign.CORRECTED,
    max_raw_tail: int | None = None,
) -> int:
    """Characters of the context the model would see now, before this compaction."""
    snapshots = state.compaction.snapshots
    if not snapshots:
        return _events_chars(events)
    previous = snapshots[-1]
    folded_through = previous.source_event_range.to
    earlier = [event for event in events if event.sequence <= folded_through]
    context = project(previous, earlier, raw_tail_size, design, max_raw_tail)
    return assembled_chars(context) + _events_chars(
        event for event in events if event.sequence > folded_through
    )
