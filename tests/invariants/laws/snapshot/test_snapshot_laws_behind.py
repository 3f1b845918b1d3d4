"""A set law that fails names the event behind each wrong value, looked up only then."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings

from compactcheck.invariants import Facts
from compactcheck.invariants.laws.snapshot.kept import (
    active_skills_preserved,
    changed_files_preserved,
    constraints_preserved,
    failed_attempts_preserved,
)
from compactcheck.reference_engine.snapshot import SnapshotPipeline, is_safe_boundary
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories

# Each law with the snapshot field it reads, the facts field it compares with, and the event
# (type, payload key) that states a value.
_LAWS = (
    (constraints_preserved, "constraints", "constraint_added", "text"),
    (changed_files_preserved, "changed_files", "file_changed", "path"),
    (active_skills_preserved, "active_skills", "skill_activated", "name"),
    (failed_attempts_preserved, "failed_attempts", "attempt_failed", "text"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(snapshot_histories())
def test_a_value_dropped_from_the_snapshot_is_reported_with_its_event(
    projected: Projected[SnapshotHistory],
) -> None:
    history = projected.view
    state = history.state
    assume(is_safe_boundary(state.status, history.pending_tool_calls, history.pending_outputs))
    done = SnapshotPipeline().compact(state, history.events)
    assume(done is not None)
    assert done is not None
    before, after, _ = done
    facts = Facts.of_state(state, superseded=projected.truth.superseded_constraints)
    for law, field, kind, key in _LAWS:
        # The reference keeps every value: the law holds.
        assert law.check(before, after, facts).violations == ()
        kept = getattr(after.snapshot, field)
        if not kept:
            continue
        dropped = kept[0]
        stating = [e for e in before.events if e.type == kind and e.text(key) == dropped]
        snapshot = after.snapshot.model_copy(update={field: tuple(kept[1:])})
        changed = replace(after, snapshot=snapshot)
        broken = law.check(before, changed, facts)
        [violation] = broken.violations
        assert repr(dropped) in violation.because
        if stating:
            assert f"event {stating[-1].event_id}" in violation.because
            assert stating[-1].to_json_data() in violation.witness
