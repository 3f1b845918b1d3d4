"""The snapshot-view laws: what a sealed snapshot and its raw tail must keep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import JsonValue

from invariants.canonical import canonical_json, sha256_hex
from invariants.catalogue import invariant
from invariants.compaction import SnapshotAfter, SnapshotBefore
from invariants.events import AgentEvent
from invariants.facts import Facts
from invariants.verdict import Finding, Violation, value_diff


def _events_where(events: Sequence[AgentEvent], kind: str, key: str) -> dict[str, AgentEvent]:
    """The last event of a type for each value of one payload key."""
    return {event.text(key): event for event in events if event.type == kind}


def _witness(*events: AgentEvent | None) -> tuple[JsonValue, ...]:
    return tuple(event.to_json_data() for event in events if event is not None)


def _set_law(
    law: str,
    label: str,
    actual: Iterable[str],
    expected: Iterable[str],
    behind: dict[str, AgentEvent],
    *,
    stale: Iterable[str] = (),
) -> tuple[Violation, ...]:
    """Violations of a set equality: values missing, stale (replaced) or invented."""
    actual_list, expected_list = list(actual), list(expected)
    actual_set, expected_set, stale_set = set(actual_list), set(expected_list), set(stale)
    found: list[Violation] = []
    for value in expected_list:
        if value not in actual_set:
            found.append(
                Violation(
                    law,
                    f"{label} {value!r} is missing from the snapshot"
                    + (f" (stated by event {behind[value].event_id})" if value in behind else ""),
                    _witness(behind.get(value)),
                    value_diff(sorted(expected_set), sorted(actual_set)),
                )
            )
    for value in actual_list:
        if value in expected_set:
            continue
        if value in stale_set:
            because = f"{label} {value!r} in the snapshot was superseded and is no longer current"
        else:
            because = f"{label} {value!r} in the snapshot was never stated in the run"
        found.append(
            Violation(
                law,
                because,
                _witness(behind.get(value)),
                value_diff(sorted(expected_set), sorted(actual_set)),
            )
        )
    return tuple(found)


@invariant("snapshot", "goal_preserved", "the snapshot's goal is the task, verbatim")
def goal_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The goal survives verbatim."""
    del before
    found: tuple[Violation, ...] = ()
    if after.snapshot.goal != facts.goal:
        found = (
            Violation(
                "goal_preserved",
                f"snapshot goal {after.snapshot.goal!r} differs from the task {facts.goal!r}",
                (),
                value_diff(facts.goal, after.snapshot.goal),
            ),
        )
    return Finding("goal_preserved", True, found)


@invariant(
    "snapshot",
    "constraints_preserved",
    "the snapshot holds the current constraints: none lost, none stale, none invented",
)
def constraints_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Current constraints kept; superseded ones dropped; nothing invented."""
    behind = _events_where(before.events, "constraint_added", "text")
    found = _set_law(
        "constraints_preserved",
        "constraint",
        after.snapshot.constraints,
        facts.constraints,
        behind,
        stale=facts.superseded_constraints,
    )
    exercised = bool(facts.constraints or facts.superseded_constraints)
    return Finding("constraints_preserved", exercised, found)


@invariant(
    "snapshot",
    "acceptance_criteria_preserved",
    "acceptance criteria equal the plan's, in order, as canonical JSON",
)
def acceptance_criteria_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """The plan's acceptance criteria, unchanged."""
    del before
    expected = [c.to_json_data() for c in facts.plan.acceptance_criteria] if facts.plan else []
    actual = [c.to_json_data() for c in after.snapshot.acceptance_criteria]
    found: tuple[Violation, ...] = ()
    if canonical_json(actual) != canonical_json(expected):
        found = (
            Violation(
                "acceptance_criteria_preserved",
                f"the snapshot lists {len(actual)} acceptance criteria that differ from the "
                f"plan's {len(expected)}",
                (),
                value_diff(expected, actual),
            ),
        )
    return Finding("acceptance_criteria_preserved", bool(expected), found)


@invariant(
    "snapshot",
    "completed_work_preserved",
    "completed work lists every completed step with its evidence, in plan order",
)
def completed_work_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Completed steps and their evidence, unchanged."""
    steps = facts.plan.steps if facts.plan else ()
    expected = [
        {"stepId": step.id, "evidence": list(step.evidence)}
        for step in steps
        if step.status == "completed"
    ]
    actual = [work.to_json_data() for work in after.snapshot.completed_work]
    found: tuple[Violation, ...] = ()
    if canonical_json(actual) != canonical_json(expected):
        behind = _events_where(before.events, "step_completed", "stepId")
        expected_ids = [step.id for step in steps if step.status == "completed"]
        actual_ids = {work.step_id for work in after.snapshot.completed_work}
        lost = [step for step in expected_ids if step not in actual_ids]
        because = (
            f"completed step(s) {sorted(lost)} are missing from completed work"
            if lost
            else "completed work differs from the plan's completed steps and their evidence"
        )
        found = (
            Violation(
                "completed_work_preserved",
                because,
                _witness(*(behind.get(step) for step in sorted(lost))),
                value_diff(expected, actual),
            ),
        )
    return Finding("completed_work_preserved", bool(expected), found)


@invariant(
    "snapshot",
    "pending_steps_preserved",
    "every unfinished step is pending work, and no completed step is pending again",
)
def pending_steps_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Unfinished steps stay pending; finished ones are not redone."""
    del before
    steps = facts.plan.steps if facts.plan else ()
    status = {step.id: step.status for step in steps}
    listed = {work.step_id for work in after.snapshot.pending_work}
    found: list[Violation] = []
    for step in steps:
        if step.status != "completed" and step.id not in listed:
            found.append(
                Violation(
                    "pending_steps_preserved",
                    f"step {step.id!r} is {step.status} but missing from pending work",
                    (step.to_json_data(),),
                )
            )
    for step_id in sorted(listed):
        if status.get(step_id) == "completed":
            found.append(
                Violation(
                    "pending_steps_preserved",
                    f"step {step_id!r} is completed but listed as pending (it would be redone)",
                    (),
                )
            )
    exercised = any(step.status != "completed" for step in steps)
    return Finding("pending_steps_preserved", exercised, tuple(found))


@invariant("snapshot", "changed_files_preserved", "every changed file of the run is listed")
def changed_files_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """No changed file forgotten."""
    behind = _events_where(before.events, "file_changed", "path")
    listed = set(after.snapshot.changed_files)
    found = tuple(
        Violation(
            "changed_files_preserved",
            f"changed file {path!r} is missing from the snapshot"
            + (f" (changed by event {behind[path].event_id})" if path in behind else ""),
            _witness(behind.get(path)),
            value_diff(list(facts.changed_files), list(after.snapshot.changed_files)),
        )
        for path in facts.changed_files
        if path not in listed
    )
    return Finding("changed_files_preserved", bool(facts.changed_files), found)


@invariant("snapshot", "active_skills_preserved", "active skills equal the run's, as a set")
def active_skills_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Active skills kept, none invented."""
    behind = _events_where(before.events, "skill_activated", "name")
    found = _set_law(
        "active_skills_preserved",
        "active skill",
        after.snapshot.active_skills,
        facts.active_skills,
        behind,
    )
    return Finding("active_skills_preserved", bool(facts.active_skills), found)


@invariant("snapshot", "failed_attempts_preserved", "failed attempts equal the run's, as a set")
def failed_attempts_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """Failed attempts kept, so they are not tried again."""
    behind = _events_where(before.events, "attempt_failed", "text")
    found = _set_law(
        "failed_attempts_preserved",
        "failed attempt",
        after.snapshot.failed_attempts,
        facts.failed_attempts,
        behind,
    )
    return Finding("failed_attempts_preserved", bool(facts.failed_attempts), found)


@invariant(
    "snapshot",
    "validation_results_preserved",
    "validation results equal the run's validations, in order, as canonical JSON",
)
def validation_results_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """Validation evidence unchanged."""
    expected = [record.to_json_data() for record in facts.validations]
    actual = [record.to_json_data() for record in after.snapshot.validation_results]
    found: tuple[Violation, ...] = ()
    if canonical_json(actual) != canonical_json(expected):
        events = [e for e in before.events if e.type == "validation_recorded"]
        found = (
            Violation(
                "validation_results_preserved",
                f"the snapshot reports {len(actual)} validation result(s) that differ from "
                f"the run's {len(expected)}",
                _witness(*events[-3:]),
                value_diff(expected, actual),
            ),
        )
    return Finding("validation_results_preserved", bool(expected), found)


@invariant(
    "snapshot",
    "unresolved_questions_preserved",
    "the question pending for the user is unresolved in the snapshot, and only that one",
)
def unresolved_questions_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """A pending question stays open; an answered one is not reopened."""
    behind = _events_where(before.events, "question_asked", "question")
    expected = [facts.pending_question] if facts.pending_question else []
    found = _set_law(
        "unresolved_questions_preserved",
        "question",
        after.snapshot.unresolved_questions,
        expected,
        behind,
    )
    return Finding("unresolved_questions_preserved", bool(expected), found)


@invariant(
    "snapshot",
    "evidence_in_range",
    "every decision cites only events inside the snapshot's source range",
)
def evidence_in_range(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """No evidence from outside the folded range, and none invented."""
    del facts
    by_id = {event.event_id: event for event in before.events}
    low, high = after.snapshot.source_event_range.from_, after.snapshot.source_event_range.to
    found: list[Violation] = []
    cited = 0
    for index, decision in enumerate(after.snapshot.decisions):
        for event_id in decision.evidence_event_ids:
            cited += 1
            event = by_id.get(event_id)
            if event is None:
                found.append(
                    Violation(
                        "evidence_in_range",
                        f"decision {index} cites event {event_id!r}, which is not in the log",
                        (decision.to_json_data(),),
                    )
                )
            elif not low <= event.sequence <= high:
                found.append(
                    Violation(
                        "evidence_in_range",
                        f"decision {index} cites event {event_id!r} (sequence {event.sequence}), "
                        f"outside the source range {low}..{high}",
                        (decision.to_json_data(), event.to_json_data()),
                    )
                )
    return Finding("evidence_in_range", cited > 0, tuple(found))


@invariant(
    "snapshot",
    "source_range_valid",
    "the source range starts after the last folded event, ends at the last event, is not empty",
)
def source_range_valid(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The snapshot folds exactly the new events."""
    del facts
    source = after.snapshot.source_event_range
    low = before.state.compaction.compacted_through_event + 1
    high = before.events[-1].sequence if before.events else low - 1
    found: list[Violation] = []
    if (source.from_, source.to) != (low, high):
        found.append(
            Violation(
                "source_range_valid",
                f"source range {source.from_}..{source.to} should be {low}..{high} "
                "(after the last folded event, through the last event)",
                (),
                value_diff({"from": low, "to": high}, source.to_json_data()),
            )
        )
    if source.to < source.from_:
        found.append(
            Violation(
                "source_range_valid", f"source range {source.from_}..{source.to} is empty", ()
            )
        )
    return Finding("source_range_valid", True, tuple(found))


@invariant(
    "snapshot",
    "checksum_valid",
    "the checksum is SHA-256 of the RFC 8785 JSON of the snapshot without its checksum",
)
def checksum_valid(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The snapshot has not been altered since it was sealed."""
    del before, facts
    data = after.snapshot.to_json_data()
    del data["checksum"]
    expected = sha256_hex(data)
    found: tuple[Violation, ...] = ()
    if expected != after.snapshot.checksum:
        found = (
            Violation(
                "checksum_valid",
                f"snapshot {after.snapshot.id!r} has checksum {after.snapshot.checksum[:12]}..., "
                f"its content hashes to {expected[:12]}...",
                (),
            ),
        )
    return Finding("checksum_valid", True, found)


@invariant(
    "snapshot",
    "raw_tail_preserved",
    "the raw tail is a verbatim suffix of the log that holds every event after the range",
)
def raw_tail_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Recent events are kept as they were, in order, with nothing skipped."""
    del facts
    events, tail = before.events, after.raw_tail
    found: list[Violation] = []
    offset = len(events) - len(tail)
    if offset < 0:
        found.append(
            Violation(
                "raw_tail_preserved",
                f"the raw tail holds {len(tail)} events, more than the log's {len(events)}",
                (),
            )
        )
    else:
        for index, event in enumerate(tail):
            original = events[offset + index]
            if event != original:
                found.append(
                    Violation(
                        "raw_tail_preserved",
                        f"raw tail position {index} holds event {event.event_id!r}; the log has "
                        f"{original.event_id!r} there (the tail must be a verbatim suffix)",
                        (original.to_json_data(), event.to_json_data()),
                        value_diff(original.to_json_data(), event.to_json_data()),
                    )
                )
                break
    newer = [e for e in events if e.sequence > after.snapshot.source_event_range.to]
    if newer and (not tail or tail[0].sequence > newer[0].sequence):
        found.append(
            Violation(
                "raw_tail_preserved",
                f"event {newer[0].event_id!r} came after the folded range but is not in the tail",
                _witness(newer[0]),
            )
        )
    return Finding("raw_tail_preserved", bool(tail) or bool(newer), tuple(found))


@invariant(
    "snapshot",
    "tool_pairing",
    "no tool result in the raw tail whose call was folded into the snapshot",
)
def tool_pairing(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The tail never starts between a tool call and its result."""
    del facts
    in_tail = {e.text("callId") for e in after.raw_tail if e.type == "tool_call"}
    calls = {e.text("callId"): e for e in before.events if e.type == "tool_call"}
    found = tuple(
        Violation(
            "tool_pairing",
            f"tool result {event.event_id!r} for call {event.text('callId')!r} is in the raw "
            "tail, but its call "
            + (
                f"{calls[event.text('callId')].event_id!r} was folded into the snapshot"
                if event.text("callId") in calls
                else "is nowhere in the log"
            ),
            _witness(calls.get(event.text("callId")), event),
        )
        for event in after.raw_tail
        if event.type == "tool_result" and event.text("callId") not in in_tail
    )
    exercised = bool(after.raw_tail) and bool(calls)
    return Finding("tool_pairing", exercised, found)


def _data_changes(law: str, what: str, old: dict[str, Any], new: dict[str, Any]) -> list[Violation]:
    if canonical_json(old) == canonical_json(new):
        return []
    return [
        Violation(law, f"the backend changed the {what} it was handed", (), value_diff(old, new))
    ]


@invariant(
    "snapshot",
    "state_untouched",
    "the backend did not mutate the input or the authoritative state it was handed",
)
def state_untouched(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Compaction never rewrites authoritative state."""
    del facts
    found = _data_changes("state_untouched", "compactor input", before.handed, after.handed)
    found += _data_changes("state_untouched", "agent state", before.state_data, after.state_data)
    return Finding("state_untouched", True, tuple(found))


@invariant(
    "snapshot",
    "progress",
    "the assembled context after compaction is smaller than before, so compaction cannot loop",
)
def progress(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Compaction shrinks the context."""
    del facts
    found: tuple[Violation, ...] = ()
    if after.context_chars >= before.context_chars:
        first = after.raw_tail[0].event_id if after.raw_tail else None
        found = (
            Violation(
                "progress",
                f"the context grows from {before.context_chars} to {after.context_chars} "
                f"characters (the raw tail starts at {first!r} and holds {len(after.raw_tail)} "
                f"of {len(before.events)} events)",
                (),
            ),
        )
    return Finding("progress", True, found)
