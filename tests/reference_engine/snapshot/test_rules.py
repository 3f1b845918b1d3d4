"""Each validation rule passes on a correct snapshot and names itself when broken."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from compactcheck.invariants import CompactionSnapshot, SourceEventRange
from compactcheck.reference_engine.snapshot import (
    ALL_RULES,
    SEED_RULES,
    ReferenceCompactor,
    SnapshotDesign,
    checksum_matches,
    checksum_of,
    compactor_input,
    seal,
    validate,
)
from tests.reference_engine.snapshot.builders import (
    events_through_completed_step,
    long_running_state,
)

STATE = long_running_state(pendingUserInput={"question": "Keep the INI reader?"})
EVENTS = events_through_completed_step()
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def correct_snapshot() -> CompactionSnapshot:
    draft = ReferenceCompactor().compact(compactor_input(STATE, EVENTS, SnapshotDesign.CORRECTED))
    return seal(
        draft, SourceEventRange.model_validate({"from": 1, "to": EVENTS[-1].sequence}), WHEN
    )


def altered(**fields: Any) -> CompactionSnapshot:
    """The correct snapshot with some fields replaced and the checksum resealed."""
    data = correct_snapshot().to_json_data()
    data.update(fields)
    data["checksum"] = checksum_of(data)
    return CompactionSnapshot.from_json_data(data)


def _completed(data: dict[str, Any]) -> list[Any]:
    return list(reversed(data["completedWork"]))


BREAKERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "goal": lambda d: {"goal": d["goal"].upper()},
    "constraints": lambda d: {"constraints": [*d["constraints"], "invented"]},
    "acceptance_criteria": lambda d: {
        "acceptanceCriteria": [{**d["acceptanceCriteria"][0], "satisfied": True}]
    },
    "completed_work": lambda d: {"completedWork": _completed(d)},
    "pending_work": lambda d: {"pendingWork": d["pendingWork"][1:]},
    "changed_files": lambda d: {"changedFiles": d["changedFiles"][1:]},
    "active_skills": lambda d: {"activeSkills": []},
    "failed_attempts": lambda d: {"failedAttempts": [*d["failedAttempts"], "another"]},
    "validation_results": lambda d: {"validationResults": []},
    "unresolved_questions": lambda d: {"unresolvedQuestions": []},
    "evidence_in_range": lambda d: {
        "decisions": [{"statement": "x", "evidenceEventIds": ["e1", "no-such-event"]}]
    },
    # With an empty range every cited event is out of range too, so drop the decisions.
    "range_not_empty": lambda d: {"sourceEventRange": {"from": 5, "to": 4}, "decisions": []},
}


def test_every_seed_rule_has_a_breaker() -> None:
    assert set(BREAKERS) == set(SEED_RULES)
    assert set(ALL_RULES) - set(SEED_RULES) == {"checksum", "progress"}


def test_correct_snapshot_passes_every_rule() -> None:
    snapshot = correct_snapshot()
    assert checksum_matches(snapshot)
    assert validate(snapshot, STATE, EVENTS, verify_checksum=True) == []


@pytest.mark.parametrize("rule", SEED_RULES)
def test_breaking_one_rule_names_exactly_that_rule(rule: str) -> None:
    base = correct_snapshot().to_json_data()
    snapshot = altered(**BREAKERS[rule](base))
    failures = validate(snapshot, STATE, EVENTS, verify_checksum=True)
    assert {failure.rule for failure in failures} == {rule}
    assert all(failure.message for failure in failures)


def test_evidence_outside_the_range_is_named_with_its_sequence() -> None:
    snapshot = altered(
        sourceEventRange={"from": 10, "to": EVENTS[-1].sequence},
        decisions=[{"statement": "x", "evidenceEventIds": ["e3"]}],
    )
    [failure] = validate(snapshot, STATE, EVENTS, verify_checksum=True)
    assert failure.rule == "evidence_in_range"
    assert "sequence 3" in failure.message


def test_changed_files_and_pending_work_accept_extras_as_in_the_seed() -> None:
    base = correct_snapshot().to_json_data()
    snapshot = altered(
        changedFiles=[*base["changedFiles"], "extra.py"],
        pendingWork=[*base["pendingWork"], {"stepId": "bonus", "reason": ""}],
    )
    assert validate(snapshot, STATE, EVENTS, verify_checksum=True) == []


def test_a_tampered_snapshot_fails_only_the_checksum_rule() -> None:
    data = correct_snapshot().to_json_data()
    data["constraints"] = ["no new runtime dependencies"]  # same value, checksum intact
    assert checksum_matches(CompactionSnapshot.from_json_data(data))
    data["goal"] = STATE.task + " "
    tampered = CompactionSnapshot.from_json_data(data)
    assert not checksum_matches(tampered)
    data["goal"] = STATE.task
    data["createdAt"] = "2030-01-01T00:00:00Z"
    moved = CompactionSnapshot.from_json_data(data)
    assert [f.rule for f in validate(moved, STATE, EVENTS, verify_checksum=True)] == ["checksum"]
    assert validate(moved, STATE, EVENTS, verify_checksum=False) == []


def test_all_broken_rules_are_reported_together() -> None:
    base = correct_snapshot().to_json_data()
    changes = {**BREAKERS["goal"](base), **BREAKERS["changed_files"](base)}
    rules = {f.rule for f in validate(altered(**changes), STATE, EVENTS, verify_checksum=True)}
    assert rules == {"goal", "changed_files"}


def test_checksum_is_sha256_of_the_canonical_json_without_the_checksum() -> None:
    import hashlib

    import rfc8785

    snapshot = correct_snapshot()
    body = snapshot.to_json_data()
    del body["checksum"]
    assert snapshot.checksum == hashlib.sha256(rfc8785.dumps(body)).hexdigest()
