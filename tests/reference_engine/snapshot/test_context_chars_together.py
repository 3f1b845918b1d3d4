"""The context size of many events, written together, is the sum of each event's encoded size."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import AgentEvent, AgentState
from compactcheck.reference_engine.snapshot import context_chars
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories

_UNCOMPACTED = AgentState.from_json_data({"runId": "r", "task": "t"})

# Payload values on both sides of the fast path: plain ones, a float, an integer past the safe
# range, non-ASCII text and a lone surrogate (which pydantic cannot write as UTF-8).
_VALUES = st.one_of(
    st.text(max_size=5),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.sampled_from([2.5, 1e-05, 2**53, "é\u2028", "\ud800", ["a", {"b": 1}]]),
)
_PAYLOADS = st.dictionaries(st.sampled_from(["x", "y", "é"]), _VALUES, max_size=3)


def _encoded(events: list[AgentEvent]) -> int:
    """Each event's size as the encoder writes its JSON data, summed."""
    return sum(
        len(json.dumps(event.to_json_data(), separators=(",", ":"), ensure_ascii=False))
        for event in events
    )


def _outcome(measure: Any) -> tuple[str, object]:
    try:
        return "value", measure()
    except Exception as error:
        return "raised", type(error)


@settings(max_examples=300)
@given(st.lists(_PAYLOADS, max_size=6))
def test_events_measured_together_sum_to_their_encoded_sizes(
    payloads: list[dict[str, Any]],
) -> None:
    events = [
        AgentEvent.trusted(f"ev-{index}", index, "assistant_output", {**payload, "text": "t"})
        for index, payload in enumerate(payloads, start=1)
    ]
    assert _outcome(lambda: context_chars(_UNCOMPACTED, events, 8)) == _outcome(
        lambda: _encoded(events)
    )


@settings(max_examples=50, deadline=None)
@given(snapshot_histories())
def test_a_generated_history_measures_as_its_encoded_events(
    projected: Projected[SnapshotHistory],
) -> None:
    events = list(projected.view.events)
    assert context_chars(_UNCOMPACTED, events, 8) == _encoded(events)
