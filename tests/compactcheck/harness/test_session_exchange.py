"""The session exchange reads each log once: what it reuses equals a reading from scratch.

The exchange keeps the log before as the harness encoded it, continues the fold of the log before
with the appended events, and takes the surface from scratch from that fold when the handed log
came back as it was. These tests rebuild every reading from scratch and compare, on the reference
engine and on backends that edit the handed log or answer garbage.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.harness import SessionBackendError, SessionCompactor, session_exchange
from compactcheck.harness.session import SessionDriver
from compactcheck.invariants import Facts
from compactcheck.invariants.session.exchange import (
    MODES,
    Mode,
    SessionAfter,
    SessionBefore,
    SurfaceFolder,
    first_breach,
    fold_view,
    parse_events,
)
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories

REFERENCE = reference_session_compactor()


def _edit_text(payload: dict[str, Any]) -> None:
    """Rewrite the text of the first user message of the handed log, in place."""
    for event in payload["log"]:
        if event["type"] == "user/message":
            event["data"]["content"] = [{"type": "text", "text": "something else entirely"}]
            return


def _editing(payload: dict[str, Any]) -> dict[str, Any]:
    """The reference's answer, after which it edits the log it was handed."""
    answer = REFERENCE(payload)
    _edit_text(payload)
    return answer


def _dropping(payload: dict[str, Any]) -> dict[str, Any]:
    """The reference, after dropping the last event of the log it was handed."""
    answer = REFERENCE(payload)
    payload["log"].pop()
    return answer


BACKENDS: dict[str, SessionCompactor] = {
    "reference": REFERENCE,
    "editing": _editing,
    "dropping": _dropping,
}


def _from_scratch(before: SessionBefore, after: SessionAfter) -> None:
    """Assert that every reading of the exchange equals one rebuilt from scratch."""
    assert before.events == parse_events(before.log_data, "log")
    assert before.surface == fold_view(before.events)
    logged = parse_events(after.log_data, "log")
    assert after.events == (*logged, *after.appended)
    assert after.surface == fold_view(after.events)
    continued = SurfaceFolder()
    continued.feed(before.events)
    continued.feed(after.appended, record=True)
    assert after.incremental == continued.view()
    assert after.breach == first_breach(after.events)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES), st.sampled_from(sorted(BACKENDS)))
def test_every_reading_equals_one_from_scratch(
    projected: Projected[SessionHistory], mode: Mode, backend: str
) -> None:
    history = projected.view
    handed: list[dict[str, Any]] = []
    payloads: list[dict[str, Any]] = []

    def watched(payload: dict[str, Any]) -> dict[str, Any]:
        handed.extend(payload["log"])
        payloads.append(payload)
        return BACKENDS[backend](payload)

    done = session_exchange(watched, history, mode)
    if done is None:
        return
    before, after = done
    _from_scratch(before, after)
    # The log after is the handed log as the backend left it.
    assert list(after.log_data) == payloads[0]["log"]
    # The log before is the history as encoded, untouched by whatever the backend did.
    assert list(before.log_data[: len(history.events)]) == history.as_dicts()
    # The handed log shares no object with the log before.
    kept = {id(item) for item in before.log_data}
    assert not any(id(item) in kept for item in handed)


def test_an_edited_log_is_read_again() -> None:
    history = _long_history()
    done = session_exchange(_editing, history, "manual")
    assert done is not None
    before, after = done
    assert after.log_data != before.log_data
    assert after.events[: len(before.events)] != before.events
    _from_scratch(before, after)


def test_a_malformed_answer_is_still_caught() -> None:
    history = _long_history()

    def answering(appended: list[Any]) -> SessionCompactor:
        def backend(payload: dict[str, Any]) -> dict[str, Any]:
            return {"appended": appended}

        return backend

    bad_seq = {"type": "compaction/start", "seq": True, "time": 1, "data": {}}
    with pytest.raises(SessionBackendError, match="not a session event"):
        session_exchange(answering([bad_seq]), history, "manual")

    def replaces_log(payload: dict[str, Any]) -> dict[str, Any]:
        payload["log"] = "gone"
        return {"appended": []}

    with pytest.raises(SessionBackendError, match="replaced the handed log"):
        session_exchange(replaces_log, history, "manual")

    def corrupts_log(payload: dict[str, Any]) -> dict[str, Any]:
        payload["log"][0]["seq"] = "zero"
        return {"appended": []}

    with pytest.raises(SessionBackendError, match="log\\[0\\] is not a session event"):
        session_exchange(corrupts_log, history, "manual")


def test_the_recorded_input_survives_a_backend_that_edits_its_log() -> None:
    history = _long_history()
    driver = SessionDriver(_editing)
    outcome = driver.one(1, tuple(history.events), "manual", Facts(goal="g"))
    assert outcome.input is not None
    assert outcome.input["log"] == history.as_dicts()


def _long_history() -> SessionHistory:
    """A generated history the reference compacts manually (one that commits)."""
    found: list[SessionHistory] = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(session_histories())
    def search(projected: Projected[SessionHistory]) -> None:
        if found:
            return
        done = session_exchange(REFERENCE, projected.view, "manual")
        if done is not None and any(e.type == "user/message" for e in projected.view.events):
            found.append(projected.view)

    search()
    assert found, "no generated history was compacted manually"
    return found[0]
