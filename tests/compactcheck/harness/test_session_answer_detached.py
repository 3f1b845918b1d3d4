"""The appended events the laws read share nothing with the answer a backend returned.

``SessionAfter.observe`` parses the answer's events without copying them first (the events'
validators take the copy); a backend that keeps its answer and edits it afterwards, as one that
reuses its buffers would, must not change what was judged.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.harness import session_exchange
from compactcheck.invariants.session.exchange import MODES, Mode
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories

REFERENCE = reference_session_compactor()


def _scramble(value: Any) -> None:
    """Edit every container of JSON data in place: strings in it replaced, lists emptied."""
    if isinstance(value, dict):
        for key, item in list(value.items()):
            if isinstance(item, str):
                value[key] = "edited afterwards"
            else:
                _scramble(item)
    elif isinstance(value, list):
        for item in value:
            _scramble(item)
        value.clear()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES))
def test_editing_the_answer_afterwards_changes_nothing_judged(
    projected: Projected[SessionHistory], mode: Mode
) -> None:
    answers: list[dict[str, Any]] = []

    def keeping(payload: dict[str, Any]) -> dict[str, Any]:
        answer = REFERENCE(payload)
        answers.append(answer)
        return answer

    done = session_exchange(keeping, projected.view, mode)
    if done is None:
        return
    _, after = done
    judged = [event.to_json_data() for event in after.appended]
    assert judged == answers[0]["appended"]
    for event in answers[0]["appended"]:
        _scramble(event)
    assert [event.to_json_data() for event in after.appended] == judged
