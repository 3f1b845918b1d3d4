"""Corruption strategies: valid histories broken in one named way, for negative tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from hypothesis import strategies as st

from compactcheck.invariants import AgentEvent
from compactcheck.invariants.session import SessionEvent
from compactcheck.strategies.messages_view import MessageHistory, message_histories
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.session_view import SessionHistory, session_histories
from compactcheck.strategies.snapshot_view import SnapshotHistory, snapshot_histories

Corruption = Literal[
    "orphan_result",
    "dangling_call",
    "reordered_events",
    "duplicated_event",
    "sequence_gap",
    "bad_replace_range",
    "bracket_crosses_turn",
]
EVENT_CORRUPTIONS: tuple[Corruption, ...] = (
    "orphan_result",
    "dangling_call",
    "reordered_events",
    "duplicated_event",
)
MESSAGE_CORRUPTIONS: tuple[Corruption, ...] = EVENT_CORRUPTIONS

Data = TypeVar("Data")
View = TypeVar("View")


@dataclass(frozen=True)
class Corrupted(Generic[View, Data]):
    """A valid history, and its data broken in one way that ``kind`` names."""

    kind: Corruption
    original: Projected[View]
    data: Data
    detail: str


def _material() -> st.SearchStrategy[Any]:
    # Two turns and one tool call guarantee something to drop, move or repeat.
    return scenarios(min_turns=2, with_tool_call=True)


def _resequence(events: list[AgentEvent]) -> tuple[AgentEvent, ...]:
    """Renumber events 1.. so that only the intended corruption remains."""
    return tuple(
        event.model_copy(update={"sequence": index, "event_id": f"ev-{index}"})
        for index, event in enumerate(events, start=1)
    )


def _answered(events: tuple[AgentEvent, ...]) -> list[str]:
    results = {event.text("callId") for event in events if event.type == "tool_result"}
    return [
        event.text("callId")
        for event in events
        if event.type == "tool_call" and event.text("callId") in results
    ]


@st.composite
def _corrupt_events(
    draw: st.DrawFn, projected: Projected[SnapshotHistory], kind: Corruption
) -> Corrupted[SnapshotHistory, tuple[AgentEvent, ...]]:
    events = projected.view.events
    answered = _answered(events)
    call_id = draw(st.sampled_from(answered))
    if kind == "orphan_result":
        kept = [e for e in events if not (e.type == "tool_call" and e.text("callId") == call_id)]
        return Corrupted(kind, projected, _resequence(kept), f"dropped the call {call_id!r}")
    if kind == "dangling_call":
        kept = [e for e in events if not (e.type == "tool_result" and e.text("callId") == call_id)]
        return Corrupted(kind, projected, _resequence(kept), f"dropped the result {call_id!r}")
    if kind == "reordered_events":
        first = draw(st.integers(0, len(events) - 2))
        second = draw(st.integers(first + 1, len(events) - 1))
        swapped = list(events)
        swapped[first], swapped[second] = swapped[second], swapped[first]
        detail = f"swapped {events[first].event_id!r} and {events[second].event_id!r}"
        return Corrupted(kind, projected, tuple(swapped), detail)
    index = draw(st.integers(0, len(events) - 1))
    repeated = (*events[: index + 1], events[index], *events[index + 1 :])
    return Corrupted(kind, projected, repeated, f"repeated {events[index].event_id!r}")


def corrupted_snapshot_histories(
    kinds: tuple[Corruption, ...] = EVENT_CORRUPTIONS,
) -> st.SearchStrategy[Corrupted[SnapshotHistory, tuple[AgentEvent, ...]]]:
    """Snapshot-view event logs broken in one of ``kinds``."""
    return st.tuples(snapshot_histories(_material()), st.sampled_from(kinds)).flatmap(
        lambda pair: _corrupt_events(*pair)
    )


@st.composite
def _corrupt_messages(
    draw: st.DrawFn, projected: Projected[MessageHistory], kind: Corruption
) -> Corrupted[MessageHistory, list[dict[str, Any]]]:
    messages = projected.view.as_dicts()
    results = [i for i, message in enumerate(messages) if message["role"] == "tool"]
    at = draw(st.sampled_from(results))
    call_id = messages[at]["tool_call_id"]
    home = next(
        i
        for i, message in enumerate(messages)
        if any(call["id"] == call_id for call in message.get("tool_calls") or ())
    )
    if kind == "orphan_result":
        calls = [call for call in messages[home]["tool_calls"] if call["id"] != call_id]
        broken = [dict(message) for message in messages]
        if calls:
            broken[home]["tool_calls"] = calls
        else:
            del broken[home]
        return Corrupted(kind, projected, broken, f"dropped the call {call_id!r}")
    if kind == "dangling_call":
        broken = messages[:at] + messages[at + 1 :]
        return Corrupted(kind, projected, broken, f"dropped the result {call_id!r}")
    if kind == "reordered_events":
        moved = messages[:at] + messages[at + 1 :]
        target = draw(st.integers(0, home))
        moved.insert(target, messages[at])
        detail = f"moved the result {call_id!r} to {target}, before its call at {home}"
        return Corrupted(kind, projected, moved, detail)
    repeated = [*messages[: at + 1], messages[at], *messages[at + 1 :]]
    return Corrupted(kind, projected, repeated, f"repeated the result {call_id!r}")


def corrupted_message_histories(
    kinds: tuple[Corruption, ...] = MESSAGE_CORRUPTIONS,
) -> st.SearchStrategy[Corrupted[MessageHistory, list[dict[str, Any]]]]:
    """Chat message lists (OpenAI dicts) broken in one of ``kinds``."""
    return st.tuples(message_histories(_material()), st.sampled_from(kinds)).flatmap(
        lambda pair: _corrupt_messages(*pair)
    )


SESSION_CORRUPTIONS: tuple[Corruption, ...] = (
    "orphan_result",
    "duplicated_event",
    "sequence_gap",
    "bad_replace_range",
    "bracket_crosses_turn",
)


def _session_event(kind: str, seq: int, data: Any, **extra: Any) -> SessionEvent:
    return SessionEvent.from_json_data(
        {"type": kind, "seq": seq, "time": _LATE_TIME + seq, "data": data, **extra}
    )


_LATE_TIME = 1_767_225_700_000


@st.composite
def _corrupt_session(
    draw: st.DrawFn, projected: Projected[SessionHistory], kind: Corruption
) -> Corrupted[SessionHistory, tuple[SessionEvent, ...]]:
    events = list(projected.view.events)
    end = len(events)
    if kind == "orphan_result":
        results = {e.data["message"]["source"]["callId"] for e in events if e.type == "tool/result"}
        calls = [
            i for i, e in enumerate(events) if e.type == "tool/call" and e.data["callId"] in results
        ]
        at = draw(st.sampled_from(calls))
        call = events[at]
        events[at] = call.model_copy(update={"data": {**call.data, "callId": "call_elsewhere"}})
        detail = f"renamed the call {call.data['callId']!r} at seq {at}: its result is an orphan"
        return Corrupted(kind, projected, tuple(events), detail)
    if kind == "duplicated_event":
        at = draw(st.integers(0, end - 1))
        events.insert(at + 1, events[at])
        return Corrupted(kind, projected, tuple(events), f"repeated seq {at}")
    if kind == "sequence_gap":
        at = draw(st.integers(1, end - 1))
        gapped = [e.model_copy(update={"seq": e.seq + 1}) if e.seq >= at else e for e in events]
        return Corrupted(kind, projected, tuple(gapped), f"no event has seq {at}")
    if kind == "bad_replace_range":
        start = end + draw(st.integers(0, 5))
        checkpoint = {
            "id": "msg-bad",
            "role": "user",
            "content": [{"type": "text", "text": "."}],
            "source": {"kind": "user"},
        }
        events.append(
            _session_event(
                "user/message",
                end,
                checkpoint,
                surfaceOp={"op": "replace", "start": start, "end": 0},
                sourceEventSeqs=[0],
            )
        )
        return Corrupted(
            kind, projected, tuple(events), f"replace from seq {start}, not on the surface"
        )
    open_turn = projected.view.open_turn
    if open_turn is None:
        turn = sum(e.type == "turn/start" for e in events) + 1
        events.append(_session_event("compaction/start", end, {"compactionId": "x", "turn": None}))
        events.append(_session_event("turn/start", end + 1, {"turn": turn}))
        detail = f"a standalone bracket open across turn/start {turn}"
    else:
        mark = {"compactionId": "x", "turn": open_turn}
        events.append(_session_event("compaction/start", end, mark))
        events.append(_session_event("step/end", end + 1, {"turn": open_turn, "step": 1}))
        events.append(
            _session_event(
                "turn/end", end + 2, {"turn": open_turn, "reason": {"kind": "completed"}}
            )
        )
        detail = f"a bracket of turn {open_turn} open across its turn/end"
    return Corrupted(kind, projected, tuple(events), detail)


def corrupted_session_histories(
    kinds: tuple[Corruption, ...] = SESSION_CORRUPTIONS,
) -> st.SearchStrategy[Corrupted[SessionHistory, tuple[SessionEvent, ...]]]:
    """Session logs broken in one of ``kinds``."""
    return st.tuples(session_histories(_material()), st.sampled_from(kinds)).flatmap(
        lambda pair: _corrupt_session(*pair)
    )
