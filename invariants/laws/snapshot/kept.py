"""The snapshot laws on what a snapshot keeps of the run: goal, plan, files, skills, evidence."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import JsonValue

from compactcheck.invariants.canonical import canonically_equal
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.invariants.events import AgentEvent
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness


def _events_where(events: Sequence[AgentEvent], kind: str, key: str) -> dict[str, AgentEvent]:
    """The last event of a type for each value of one payload key."""
    return {event.text(key): event for event in events if event.type == kind}


# The events behind a set law's values: the log, an event type and the payload key holding the
# value (see ``_events_where``).
_Behind = tuple[Sequence[AgentEvent], str, str]


def _set_law(
    law: str,
    label: str,
    actual: Iterable[str],
    expected: Iterable[str],
    events: _Behind,
    *,
    stale: Iterable[str] = (),
) -> tuple[Violation, ...]:
    """Violations of a set equality: values missing, stale (replaced) or invented.

    ``events`` names the events behind the values (by type and payload key), looked up only
    when a value is wrong: a law that holds need not scan the log.
    """
    actual_list, expected_list = list(actual), list(expected)
    actual_set, expected_set = set(actual_list), set(expected_list)
    if actual_set == expected_set:
        return ()
    stale_set = set(stale)
    behind = _events_where(*events)
    found: list[Violation] = []
    for value in expected_list:
        if value not in actual_set:
            found.append(
                Violation(
                    law,
                    f"{label} {value!r} is missing from the snapshot"
                    + (f" (stated by event {behind[value].event_id})" if value in behind else ""),
                    witness(behind.get(value)),
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
                witness(behind.get(value)),
                value_diff(sorted(expected_set), sorted(actual_set)),
            )
        )
    return tuple(found)


def _same_in_order(
    law: str,
    expected: list[dict[str, Any]],
    actual: list[dict[str, Any]],
    explain: Callable[[], tuple[str, tuple[JsonValue, ...]]],
) -> Finding:
    """A law that a list of the snapshot equals the run's, in order, as canonical JSON.

    ``explain`` gives the sentence and the witness; it runs only when the lists differ, since
    finding the events behind a difference may scan the whole log.
    """
    found: tuple[Violation, ...] = ()
    if not canonically_equal(actual, expected):
        because, shown = explain()
        found = (Violation(law, because, shown, value_diff(expected, actual)),)
    return Finding(law, bool(expected), found)


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
    found = _set_law(
        "constraints_preserved",
        "constraint",
        after.snapshot.constraints,
        facts.constraints,
        (before.events, "constraint_added", "text"),
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

    def explain() -> tuple[str, tuple[JsonValue, ...]]:
        because = (
            f"the snapshot lists {len(actual)} acceptance criteria that differ from the "
            f"plan's {len(expected)}"
        )
        return because, ()

    return _same_in_order("acceptance_criteria_preserved", expected, actual, explain)


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

    def explain() -> tuple[str, tuple[JsonValue, ...]]:
        behind = _events_where(before.events, "step_completed", "stepId")
        expected_ids = [step.id for step in steps if step.status == "completed"]
        actual_ids = {work.step_id for work in after.snapshot.completed_work}
        lost = [step for step in expected_ids if step not in actual_ids]
        because = (
            f"completed step(s) {sorted(lost)} are missing from completed work"
            if lost
            else "completed work differs from the plan's completed steps and their evidence"
        )
        return because, witness(*(behind.get(step) for step in sorted(lost)))

    return _same_in_order("completed_work_preserved", expected, actual, explain)


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
    listed = set(after.snapshot.changed_files)
    if all(path in listed for path in facts.changed_files):
        return Finding("changed_files_preserved", bool(facts.changed_files), ())
    behind = _events_where(before.events, "file_changed", "path")
    found = tuple(
        Violation(
            "changed_files_preserved",
            f"changed file {path!r} is missing from the snapshot"
            + (f" (changed by event {behind[path].event_id})" if path in behind else ""),
            witness(behind.get(path)),
            value_diff(list(facts.changed_files), list(after.snapshot.changed_files)),
        )
        for path in facts.changed_files
        if path not in listed
    )
    return Finding("changed_files_preserved", bool(facts.changed_files), found)


@invariant("snapshot", "active_skills_preserved", "active skills equal the run's, as a set")
def active_skills_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Active skills kept, none invented."""
    found = _set_law(
        "active_skills_preserved",
        "active skill",
        after.snapshot.active_skills,
        facts.active_skills,
        (before.events, "skill_activated", "name"),
    )
    return Finding("active_skills_preserved", bool(facts.active_skills), found)


@invariant("snapshot", "failed_attempts_preserved", "failed attempts equal the run's, as a set")
def failed_attempts_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """Failed attempts kept, so they are not tried again."""
    found = _set_law(
        "failed_attempts_preserved",
        "failed attempt",
        after.snapshot.failed_attempts,
        facts.failed_attempts,
        (before.events, "attempt_failed", "text"),
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

    def explain() -> tuple[str, tuple[JsonValue, ...]]:
        events = [e for e in before.events if e.type == "validation_recorded"]
        because = (
            f"the snapshot reports {len(actual)} validation result(s) that differ from "
            f"the run's {len(expected)}"
        )
        return because, witness(*events[-3:])

    return _same_in_order("validation_results_preserved", expected, actual, explain)


@invariant(
    "snapshot",
    "unresolved_questions_preserved",
    "the question pending for the user is unresolved in the snapshot, and only that one",
)
def unresolved_questions_preserved(
    before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> Finding:
    """A pending question stays open; an answered one is not reopened."""
    expected = [facts.pending_question] if facts.pending_question else []
    found = _set_law(
        "unresolved_questions_preserved",
        "question",
        after.snapshot.unresolved_questions,
        expected,
        (before.events, "question_asked", "question"),
    )
    return Finding("unresolved_questions_preserved", bool(expected), found)
