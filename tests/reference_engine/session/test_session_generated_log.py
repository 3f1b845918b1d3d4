"""The reference session compactor's fast path: a log our generator wrote is adopted unchecked.

The fast path must answer byte for byte what the checked path answers on every generated history,
and trust must not leak: JSON from anywhere else (or a generated log's JSON edited on the way)
is parsed and checked as always, and only the generator can mark a log as its own.
"""

from __future__ import annotations

import copy
import json
import pickle
from functools import partial
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.harness import session_exchange
from compactcheck.invariants.session import LogViolationError, SessionEvent
from compactcheck.invariants.session.exchange import MODES, Mode
from compactcheck.reference_engine.session import (
    ReferenceSessionCompactor,
    reference_session_compactor,
)
from compactcheck.reference_engine.shared_semantics import GeneratedCompactor
from compactcheck.strategies import Projected
from compactcheck.strategies.generated_log import GeneratedLog
from compactcheck.strategies.session_view import SessionHistory, session_histories

REFERENCE = reference_session_compactor()


def _handed(history: SessionHistory, mode: Mode) -> dict[str, Any]:
    """The payload the harness hands a compactor for this history and mode (a detached copy)."""
    handed: list[dict[str, Any]] = []

    def watching(payload: dict[str, Any]) -> dict[str, Any]:
        handed.append(copy.deepcopy(payload))
        return {"skipped": "only watching"}

    session_exchange(watching, history, mode)
    return handed[0]


class _Spy:
    """A compactor with both entries that records which one the harness called."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("checked")
        return REFERENCE(payload)

    def compact_generated(self, payload: dict[str, Any], generated: GeneratedLog) -> dict[str, Any]:
        self.calls.append("generated")
        return REFERENCE.compact_generated(payload, generated)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES))
def test_the_fast_path_answers_byte_for_byte_what_the_checked_path_answers(
    projected: Projected[SessionHistory], mode: Mode
) -> None:
    history = projected.view
    assert history.generated is not None
    payload = _handed(history, mode)
    written = [event.to_json_data() for event in history.events]
    checked = REFERENCE(copy.deepcopy(payload))
    fast = REFERENCE.compact_generated(copy.deepcopy(payload), history.generated)
    assert json.dumps(fast) == json.dumps(checked)
    # The adopted events are shared with the generator's history: the engine left them as they were.
    assert [event.to_json_data() for event in history.events] == written
    # Through the harness too: the exchange with the mark reads what the exchange without it reads.
    marked = session_exchange(REFERENCE, history, mode, generated=history.generated)
    unmarked = session_exchange(REFERENCE, history, mode)
    assert marked == unmarked


def test_only_the_generator_marks_a_log() -> None:
    event = SessionEvent.from_json_data(
        {"type": "session/end-seed", "seq": 0, "time": 1, "data": {}}
    )
    with pytest.raises(TypeError, match="own generator"):
        GeneratedLog((event,), object())


def _long_history() -> SessionHistory:
    """A generated history of 12 events or more that the reference compacts in manual mode (on
    some histories it declines, and a test of what its answer vouches for needs an answer)."""

    @settings(max_examples=30, database=None, deadline=None)
    @given(session_histories())
    def find(projected: Projected[SessionHistory]) -> None:
        history = projected.view
        if len(history.events) >= 12 and session_exchange(REFERENCE, history, "manual"):
            found.append(history)

    found: list[SessionHistory] = []
    find()
    return max(found, key=lambda history: len(history.events))


# A tool result no call opened: the log grammar's TP/SI rules refuse it wherever it stands.
def _orphan_result(seq: int, time: int) -> dict[str, Any]:
    return {
        "type": "tool/result",
        "seq": seq,
        "time": time,
        "data": {"turn": 1, "step": 1, "callId": "never-called", "content": []},
    }


@pytest.mark.parametrize("entry", ["checked", "generated"])
def test_json_the_generator_did_not_write_is_still_checked(entry: str) -> None:
    history = _long_history()
    assert history.generated is not None
    payload = _handed(history, "manual")
    # An edit inside the generator's part of the log: the mark no longer vouches for it.
    log = payload["log"]
    middle = len(log) // 2
    log[middle] = _orphan_result(log[middle]["seq"], log[middle]["time"])
    generated = history.generated
    call = (
        REFERENCE
        if entry == "checked"
        else partial(REFERENCE.compact_generated, generated=generated)
    )
    with pytest.raises(LogViolationError):
        call(payload)


def test_events_after_the_generated_part_are_still_checked() -> None:
    history = _long_history()
    assert history.generated is not None
    payload = _handed(history, "manual")
    last = payload["log"][-1]
    payload["log"].append(_orphan_result(last["seq"] + 1, last["time"] + 1))
    with pytest.raises(LogViolationError):
        REFERENCE.compact_generated(payload, history.generated)


def test_a_broken_envelope_is_still_refused() -> None:
    history = _long_history()
    assert history.generated is not None
    payload = _handed(history, "manual")
    payload["log"][0] = {**payload["log"][0], "seq": "zero"}
    with pytest.raises(LogViolationError, match="envelope"):
        REFERENCE.compact_generated(payload, history.generated)


def test_the_harness_hands_the_mark_only_with_a_generated_history() -> None:
    history = _long_history()
    assert isinstance(REFERENCE, GeneratedCompactor)
    assert isinstance(REFERENCE, ReferenceSessionCompactor)
    spy = _Spy()
    session_exchange(spy, history, "manual", generated=history.generated)
    # A history read from JSON (a corpus entry, a user's file) carries no mark.
    parsed = SessionHistory(
        tuple(SessionEvent.from_json_data(event) for event in history.as_dicts())
    )
    assert parsed.generated is None
    session_exchange(spy, parsed, "manual", generated=parsed.generated)
    assert spy.calls == ["generated", "checked"]


def test_a_compactor_without_the_fast_entry_never_sees_the_mark() -> None:
    history = _long_history()
    seen: list[dict[str, Any]] = []

    def plain(payload: dict[str, Any]) -> dict[str, Any]:
        seen.append(payload)
        return REFERENCE(payload)

    assert not isinstance(plain, GeneratedCompactor)
    session_exchange(plain, history, "manual", generated=history.generated)
    assert len(seen) == 1
    assert set(seen[0]) == {"log", "mode"}


def _session_mutants() -> dict[str, Any]:
    from compactcheck.targets.registry import all_mutants

    return {name: m for name, m in sorted(all_mutants().items()) if m.view == "session"}


_MUTANTS = _session_mutants()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES), st.sampled_from(sorted(_MUTANTS)))
def test_the_judge_reads_a_vouched_log_as_one_it_checked_whole(
    projected: Projected[SessionHistory], mode: Mode, mutant: str
) -> None:
    # Broken compactors answer breaches of every family: each is found at the same rule and seq
    # whether the generator's part of the log was adopted or checked.
    history = projected.view
    compactor = _MUTANTS[mutant].build()
    marked = session_exchange(compactor, history, mode, generated=history.generated)
    unmarked = session_exchange(compactor, history, mode)
    if marked is None or unmarked is None:
        assert marked is None
        assert unmarked is None
        return
    assert marked[0].vouched == len(history.events)
    assert unmarked[0].vouched == 0
    assert marked == unmarked
    assert marked[1].breach == unmarked[1].breach


def test_a_mark_on_other_events_vouches_for_nothing() -> None:
    history = _long_history()
    assert history.generated is not None
    # The same events, read again from JSON: equal, but not the objects the generator wrote.
    parsed = SessionHistory(
        tuple(SessionEvent.from_json_data(event) for event in history.as_dicts())
    )
    done = session_exchange(REFERENCE, parsed, "manual", generated=history.generated)
    assert done is not None
    assert done[0].vouched == 0


def test_the_mark_does_not_travel_through_pickle() -> None:
    history = _long_history()
    travelled = pickle.loads(pickle.dumps(history))
    assert travelled == history
    assert travelled.generated is None
    # A copy in this process keeps the mark, which vouches only for the very events it holds.
    copied = copy.deepcopy(history)
    assert copied.generated is history.generated
    done = session_exchange(REFERENCE, copied, "manual", generated=copied.generated)
    assert done is not None
    assert done[0].vouched == 0
