"""Adopting a valid session log in one loop leaves the state a full check leaves.

``LogChecker.adopt_all`` skips every rule's test and reads each change instead of checking it;
``adopt_prefix`` folds the surface in that same pass; the log after's check continues from the
adopted checker once. Each is compared here with the reading from scratch, on generated logs and
on the logs the reference engine's answers make of them (which hold replaces and brackets).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.harness import session_exchange
from compactcheck.invariants.session import SessionEvent
from compactcheck.invariants.session.checker import LogChecker
from compactcheck.invariants.session.exchange import (
    MODES,
    AdoptedPrefix,
    Mode,
    SessionAfter,
    SurfaceFolder,
    adopt_prefix,
    first_breach,
)
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories

REFERENCE = reference_session_compactor()


def _state(checker: LogChecker) -> tuple[Any, ...]:
    """Everything a checker keeps between events."""
    surface, enclosure, brackets = checker.surface, checker.enclosure, checker.brackets
    return (
        checker.events,
        surface.nodes,
        surface.index,
        surface.generation,
        surface.next_seq,
        vars(enclosure),
        brackets.open_turn,
        repr(brackets.open),
        checker.claim,
        checker.open_total,
        checker.pending_prune,
    )


def _checked(events: tuple[SessionEvent, ...]) -> LogChecker:
    checker = LogChecker()
    for event in events:
        checker.feed(event)
    return checker


def _valid_logs(history: SessionHistory, mode: Mode) -> list[tuple[SessionEvent, ...]]:
    """The history, and the log after the reference's answer to it when that keeps every rule."""
    logs = [history.events]
    done = session_exchange(REFERENCE, history, mode, generated=history.generated)
    if done is not None and done[1].breach is None:
        logs.append(done[1].events)
    return logs


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES), st.data())
def test_adopting_a_valid_log_leaves_the_state_checking_it_leaves(
    projected: Projected[SessionHistory], mode: Mode, data: st.DataObject
) -> None:
    for events in _valid_logs(projected.view, mode):
        # Any prefix of a valid log is one: the state must agree after each.
        cut = data.draw(st.integers(0, len(events)), label="cut")
        for prefix in (events[:cut], events):
            adopted = LogChecker()
            adopted.adopt_all(prefix)
            one_by_one = LogChecker()
            for event in prefix:
                one_by_one.adopt(event)
            assert _state(adopted) == _state(_checked(prefix)) == _state(one_by_one)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES))
def test_the_adopting_pass_folds_the_surface_a_folder_folds(
    projected: Projected[SessionHistory], mode: Mode
) -> None:
    for events in _valid_logs(projected.view, mode):
        adopted, folder = adopt_prefix(events)
        fresh = SurfaceFolder()
        fresh.feed(events)
        assert folder.view() == fresh.view()
        assert folder.events == fresh.events
        # Continued alike with more events, the two folds stay alike.
        more = events[len(events) // 2 :]
        twin = fresh.copy()
        for fold in (folder, twin):
            fold.feed(more, record=True)
        assert folder.view() == twin.view()
        assert adopted.count == len(events)


def test_an_adopted_checker_is_handed_on_once() -> None:
    @settings(max_examples=10, database=None, deadline=None)
    @given(session_histories())
    def check(projected: Projected[SessionHistory]) -> None:
        events = projected.view.events
        adopted, _ = adopt_prefix(events)
        assert isinstance(adopted, AdoptedPrefix)
        taken = adopted.take()
        assert taken is not None
        assert adopted.take() is None
        # Taken already, it is passed over: the check adopts the events afresh.
        assert first_breach(events, len(events), adopted) == first_breach(events)

    check()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES))
def test_a_before_read_twice_gives_the_same_breach(
    projected: Projected[SessionHistory], mode: Mode
) -> None:
    # The log after's check takes the adopted checker; a second reading of the same log before
    # (a second answer) must not continue from a checker the first one moved on.
    history = projected.view
    done = session_exchange(REFERENCE, history, mode, generated=history.generated)
    if done is None:
        return
    before, after = done
    assert before.vouched == len(history.events)
    again = SessionAfter.observe(
        before, before.log_data, [event.to_json_data() for event in after.appended]
    )
    assert after.breach == again.breach == first_breach(after.events)
    # An answer that breaks a rule is found at the same rule and seq from the adopted state.
    broken = [*after.appended, *after.appended]
    doubled = SessionAfter.observe(before, before.log_data, [e.to_json_data() for e in broken])
    assert doubled.breach == first_breach(doubled.events)


class _EditingGenerated:
    """The reference through its generated entry, after which it edits the handed log in place."""

    def __init__(self, edit: str) -> None:
        self.edit = edit

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("the harness hands a generated log to the generated entry")

    def compact_generated(self, payload: dict[str, Any], generated: Any) -> dict[str, Any]:
        answer = REFERENCE.compact_generated(payload, generated)
        log = payload["log"]
        if self.edit == "text":
            for event in log:
                if event["type"] == "user/message":
                    event["data"]["content"] = [{"type": "text", "text": "something else"}]
                    break
        elif self.edit == "drop":
            log.pop()
        else:
            log[len(log) // 2]["seq"] += 1000
        return answer


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES), st.sampled_from(["text", "drop", "seq"]))
def test_an_edit_in_place_on_the_generated_path_is_read_from_scratch(
    projected: Projected[SessionHistory], mode: Mode, edit: str
) -> None:
    # The adopted checker is continued only for a log handed back as it was: an edited one is
    # checked whole, as on the checked path, and the log before stays as the generator wrote it.
    history = projected.view
    done = session_exchange(_EditingGenerated(edit), history, mode, generated=history.generated)
    if done is None:
        return
    before, after = done
    assert before.vouched == len(history.events)
    assert list(before.log_data[: len(history.events)]) == history.as_dicts()
    assert after.log_data != before.log_data
    assert after.breach == first_breach(after.events)
    if edit != "text":
        # A dropped event or a moved seq leaves the log after out of sequence.
        assert after.breach is not None
        assert after.breach.rule == "S1"
