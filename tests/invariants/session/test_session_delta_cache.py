"""Open-call deltas kept by event read exactly as a fresh count, whatever events come and go."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.session import SessionEvent, node_delta
from compactcheck.invariants.session.pairing import event_delta
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories


@settings(max_examples=60, deadline=None)
@given(session_histories())
def test_a_kept_delta_is_the_fresh_count(projected: Projected[SessionHistory]) -> None:
    for event in [*projected.view.events, *projected.view.events]:
        assert event_delta(event) == node_delta(event.type, event.data)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_events_made_and_dropped_one_by_one_are_each_counted_as_themselves(
    calls: list[int],
) -> None:
    # Each event is dropped before the next is made, so a count kept by object address alone
    # would hand a new event the count of a dead one at the same address.
    for number, count in enumerate(calls):
        blocks = [{"type": "tool-call", "id": f"c{n}", "name": "read"} for n in range(count)]
        event = SessionEvent.from_json_data(
            {
                "type": "assistant/message",
                "seq": number,
                "time": 1,
                "surfaceOp": "append",
                "data": {"message": {"role": "assistant", "content": blocks}},
            }
        )
        assert event_delta(event) == count == node_delta(event.type, event.data)
        del event
