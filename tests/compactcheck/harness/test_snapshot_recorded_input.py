"""A snapshot round records its input as each model's own JSON data."""

from __future__ import annotations

from hypothesis import given, settings

from compactcheck.harness.snapshot import SnapshotDriver
from compactcheck.invariants import Facts
from compactcheck.reference_engine.shared_semantics import SnapshotFrame
from compactcheck.reference_engine.snapshot import ReferenceCompactor
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories


@settings(max_examples=100, deadline=None)
@given(snapshot_histories())
def test_the_recorded_input_is_the_state_and_events_as_json_data(
    projected: Projected[SnapshotHistory],
) -> None:
    history = projected.view
    driver = SnapshotDriver(SnapshotFrame(compactor=ReferenceCompactor()))
    facts = Facts.of_state(history.state)
    outcome, _ = driver.one(1, history.state, history.events, facts, history.pending_tool_calls)
    assert outcome.input == {
        "state": history.state.to_json_data(),
        "events": [event.to_json_data() for event in history.events],
    }
    assert type(outcome.input["events"]) is list
