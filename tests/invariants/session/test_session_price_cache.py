"""Node prices kept by event read exactly as a fresh pricing, whatever events come and go."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.session import SessionEvent, estimate_message, node_price
from compactcheck.invariants.session.messages import raw_event_message
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories


def _fresh(event: SessionEvent) -> int:
    message = raw_event_message(event)
    return 0 if message is None else estimate_message(message)


@settings(max_examples=60, deadline=None)
@given(session_histories())
def test_a_kept_price_is_the_fresh_price(projected: Projected[SessionHistory]) -> None:
    for event in [*projected.view.events, *projected.view.events]:
        assert node_price(event) == _fresh(event)


@given(st.lists(st.text(max_size=60), min_size=1, max_size=40))
def test_events_made_and_dropped_one_by_one_are_each_priced_as_themselves(
    texts: list[str],
) -> None:
    # Each event is dropped before the next is made, so a pricing kept by object address alone
    # would hand a new event the price of a dead one at the same address.
    for number, text in enumerate(texts):
        event = SessionEvent.from_json_data(
            {
                "type": "user/message",
                "seq": number,
                "time": 1,
                "surfaceOp": "append",
                "data": {"turn": 1, "content": [{"type": "text", "text": text}]},
            }
        )
        assert node_price(event) == _fresh(event)
        del event
