"""Adopting a valid log in several parts (some empty) leaves the state one full check leaves.

``LogChecker.adopt_all`` sets what only the last event decides (the surface's next seq, the
enclosure's last seq, the armed claim, a pending prune) once, after its loop; a part with no
events must leave them as they were.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.invariants.session.checker import LogChecker
from compactcheck.invariants.session.exchange import MODES, Mode
from compactcheck.strategies import Projected
from compactcheck.strategies.session_view import SessionHistory, session_histories
from tests.invariants.session.test_session_adoption import _checked, _state, _valid_logs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_histories(), st.sampled_from(MODES), st.data())
def test_adopting_in_parts_leaves_the_state_checking_leaves(
    projected: Projected[SessionHistory], mode: Mode, data: st.DataObject
) -> None:
    for events in _valid_logs(projected.view, mode):
        cuts = sorted(data.draw(st.lists(st.integers(0, len(events)), max_size=4), label="cuts"))
        adopted = LogChecker()
        start = 0
        for cut in [*cuts, len(events)]:
            adopted.adopt_all(events[start:cut])
            # An empty part (a repeated cut) changes nothing.
            adopted.adopt_all(())
            assert _state(adopted) == _state(_checked(events[:cut]))
            start = cut
