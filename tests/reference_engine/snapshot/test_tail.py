"""The raw tail: the seed's boundary, and the corrected boundary's guarantees."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    SnapshotDraft,
    SourceEventRange,
)
from compactcheck.invariants.canonical import plain_json
from compactcheck.reference_engine.snapshot import (
    SnapshotDesign,
    context_chars,
    context_sources,
    corrected_boundary,
    literal_boundary,
    project,
    seal,
    tail_orphans,
)
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories
from tests.reference_engine.snapshot.builders import event


def snapshot_over(low: int, high: int) -> CompactionSnapshot:
    draft = SnapshotDraft(goal="g")
    source = SourceEventRange.model_validate({"from": low, "to": high})
    return seal(draft, source, datetime(2026, 1, 1, tzinfo=UTC))


def notes(first: int, count: int) -> list[AgentEvent]:
    return [event(first + i, "assistant_output", text=f"note {i}") for i in range(count)]


def test_literal_boundary_is_the_earliest_of_last_n_and_the_anchors() -> None:
    events = [*notes(1, 5), event(6, "user_input", text="hi"), *notes(7, 10)]
    snapshot = snapshot_over(1, 16)
    assert literal_boundary(events, snapshot, 3) == 6  # the user input is older than the last 3
    assert literal_boundary(events, snapshot, 12) == 5
    # More requested than exist: the seed falls back to the range start.
    assert literal_boundary(events, snapshot_over(4, 16), 40) == 4
    # The seed's events.at(-0) is the first event, so a tail size of 0 keeps everything.
    assert literal_boundary(events, snapshot, 0) == 1


def test_literal_tail_can_orphan_a_late_result() -> None:
    events = [
        *notes(1, 3),
        event(4, "tool_batch_started", batchId="a", callIds=["c1"]),
        event(5, "tool_call", callId="c1", batchId="a", name="f", arguments="{}"),
        event(6, "tool_batch_started", batchId="b", callIds=["c2"]),
        event(7, "tool_call", callId="c2", batchId="b", name="f", arguments="{}"),
        event(8, "tool_result", callId="c1", output="late", isError=False),
        event(9, "tool_result", callId="c2", output="ok", isError=False),
    ]
    snapshot = snapshot_over(1, 9)
    literal = project(snapshot, events, 2, SnapshotDesign.LITERAL)
    assert [e.sequence for e in literal.raw_tail] == [6, 7, 8, 9]
    assert tail_orphans(literal.raw_tail) == ["c1"]
    corrected = project(snapshot, events, 2, SnapshotDesign.CORRECTED)
    assert tail_orphans(corrected.raw_tail) == []
    assert corrected.raw_tail[0].sequence == 4


def test_corrected_tail_ignores_an_old_user_input() -> None:
    events = [event(1, "user_input", text="do it"), *notes(2, 30)]
    snapshot = snapshot_over(1, 31)
    assert literal_boundary(events, snapshot, 4) == 1
    assert corrected_boundary(events, snapshot, 4, 8) == 28


def test_context_sources_put_the_snapshot_first() -> None:
    events = notes(1, 6)
    snapshot = snapshot_over(1, 6)
    sources = context_sources(project(snapshot, events, 2))
    assert sources[0].id == f"compaction:{snapshot.id}"
    assert (sources[0].kind, sources[0].label, sources[0].priority) == (
        "compaction_snapshot",
        "Verified task memory",
        95,
    )
    assert [source.id for source in sources[1:]] == ["event:e5", "event:e6"]


@st.composite
def histories(draw: st.DrawFn) -> list[AgentEvent]:
    """Events with tool batches whose results may arrive late, and anchors anywhere."""
    events: list[AgentEvent] = []
    waiting: list[str] = []
    calls = 0
    for _ in range(draw(st.integers(1, 40))):
        sequence = len(events) + 1
        choice = draw(st.sampled_from(["note", "user", "step", "batch", "result"]))
        if choice == "batch":
            size = draw(st.integers(1, 3))
            ids = [f"c{calls + i}" for i in range(size)]
            calls += size
            events.append(
                event(sequence, "tool_batch_started", batchId=f"b{sequence}", callIds=ids)
            )
            for call_id in ids:
                events.append(
                    event(
                        len(events) + 1,
                        "tool_call",
                        callId=call_id,
                        batchId="b",
                        name="f",
                        arguments="{}",
                    )
                )
            waiting.extend(ids)
        elif choice == "result" and waiting:
            call_id = waiting.pop(draw(st.integers(0, len(waiting) - 1)))
            events.append(event(sequence, "tool_result", callId=call_id, output="", isError=False))
        elif choice == "user":
            events.append(event(sequence, "user_input", text="u"))
        elif choice == "step":
            events.append(event(sequence, "step_started", stepId="s"))
        else:
            events.append(event(sequence, "assistant_output", text="n"))
    for call_id in waiting:
        events.append(
            event(len(events) + 1, "tool_result", callId=call_id, output="", isError=False)
        )
    return events


@settings(max_examples=300)
@given(histories(), st.integers(0, 12), st.integers(0, 24), st.data())
def test_corrected_tail_keeps_pairs_and_always_folds_something(
    events: list[AgentEvent], raw_tail_size: int, extra: int, data: st.DataObject
) -> None:
    low = data.draw(st.integers(1, len(events)))
    snapshot = snapshot_over(low, events[-1].sequence)
    window = [e for e in events if e.sequence >= low]
    max_tail = raw_tail_size + extra
    tail = project(snapshot, events, raw_tail_size, SnapshotDesign.CORRECTED, max_tail).raw_tail
    assert tail_orphans(tail) == []
    assert len(tail) <= len(window) - 1
    if len(tail) > max_tail:
        # Only pairing may stretch the tail past its ceiling: it then starts at a tool batch.
        assert tail[0].type in ("tool_batch_started", "tool_call")
    assert list(tail) == window[len(window) - len(tail) :]


def _measured(measure: Callable[[], int]) -> tuple[str, object]:
    """A measure's value, or the type of what it raised."""
    try:
        return "value", measure()
    except Exception as error:
        return "raised", type(error)


_UNCOMPACTED = AgentState.from_json_data({"runId": "r", "task": "t"})


def _event_chars(event: AgentEvent) -> int:
    """An event's size as the context measures it: before any snapshot, every event counts."""
    return context_chars(_UNCOMPACTED, [event], 8)


def _encoded_chars(event: AgentEvent) -> int:
    """The oracle of ``_event_chars``: the length of the encoder's text of the JSON data."""
    return len(json.dumps(event.to_json_data(), separators=(",", ":"), ensure_ascii=False))


# Longer than ``str`` writes (built lazily: Hypothesis cannot write it in a strategy's repr).
_too_long_ints = st.sampled_from([1, -1]).map(lambda sign: sign * 10**5000)
_texts = st.text(max_size=6) | st.sampled_from(["\ud800", "a\udfff", '"\\\n\x00\x7f\u2028'])
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**53, 2**64])
    | _too_long_ints
    | st.floats()
    | st.sampled_from([1e-05, 2.5e-07, 1e16, -0.0])
    | _texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=400)
@given(
    st.dictionaries(_texts, _json_values, max_size=4),
    st.integers(min_value=0) | st.just(2**53) | _too_long_ints,
    _texts,
)
def test_an_event_measures_as_its_encoded_json_data(
    payload: dict[str, object], sequence: int, event_id: str
) -> None:
    # The fast path (pydantic's JSON writer, where it writes what the encoder writes) against
    # the encoder itself, errors included.
    built = AgentEvent.trusted(event_id, sequence, "assistant_output", {**payload, "text": "t"})
    assert _measured(lambda: _event_chars(built)) == _measured(lambda: _encoded_chars(built))


def test_a_deeply_nested_payload_measures_as_the_encoder_measures_it() -> None:
    nested: object = "leaf"
    for _ in range(5000):
        nested = [nested]
    built = AgentEvent.trusted("e", 1, "assistant_output", {"text": "t", "deep": nested})
    assert _measured(lambda: _event_chars(built)) == _measured(lambda: _encoded_chars(built))


@settings(max_examples=50, deadline=None)
@given(snapshot_histories())
def test_generated_events_measure_as_their_encoded_json_data_on_the_fast_path(
    projected: Projected[SnapshotHistory],
) -> None:
    for item in projected.view.events:
        # What makes the measure take pydantic's writer (with a sequence this small).
        assert plain_json(item.payload)
        assert _event_chars(item) == _encoded_chars(item)
