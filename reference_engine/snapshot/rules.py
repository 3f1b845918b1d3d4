"""The twelve validation rules of the seed, plus the checksum rule of the corrected design."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from compactcheck.invariants import AgentEvent, AgentState, CompactionSnapshot, canonically_equal
from compactcheck.reference_engine.shared_semantics import checksum_matches

RuleId = Literal[
    "goal",
    "constraints",
    "acceptance_criteria",
    "completed_work",
    "pending_work",
    "changed_files",
    "active_skills",
    "failed_attempts",
    "validation_results",
    "unresolved_questions",
    "evidence_in_range",
    "range_not_empty",
    "checksum",
    "progress",
]

# The seed's rules, in its order (section 5 of the snapshot spec); the corrected design adds
# the checksum, verified whenever a snapshot is read back, and refuses a compaction after which
# the assembled context would not be smaller.
ALL_RULES: tuple[RuleId, ...] = get_args(RuleId)
SEED_RULES: tuple[RuleId, ...] = ALL_RULES[:12]

RULE_STATEMENTS: dict[RuleId, str] = {
    "goal": "the snapshot's goal equals the task",
    "constraints": "constraints equal the state's constraints, as sets",
    "acceptance_criteria": "acceptance criteria equal the plan's, as canonical JSON, in order",
    "completed_work": "completed work equals every completed step and its evidence, in order",
    "pending_work": "every step that is not completed appears in pending work",
    "changed_files": "every changed file of the state appears in the snapshot",
    "active_skills": "active skills equal the names of the state's active skills, as sets",
    "failed_attempts": "failed attempts equal the state's, as sets",
    "validation_results": "validation results equal the state's validations, as canonical JSON",
    "unresolved_questions": "unresolved questions equal the pending question (or none), as sets",
    "evidence_in_range": "every decision's evidence names an event inside the source range",
    "range_not_empty": "the source range is not empty",
    "checksum": "the checksum matches the snapshot's content",
    "progress": "the assembled context after compaction is smaller than before",
}


@dataclass(frozen=True)
class RuleFailure:
    """One broken rule and what broke it."""

    rule: RuleId
    message: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"


def _set_difference(actual: Iterable[str], expected: Iterable[str]) -> str | None:
    actual_set, expected_set = set(actual), set(expected)
    if actual_set == expected_set:
        return None
    missing = sorted(expected_set - actual_set)
    extra = sorted(actual_set - expected_set)
    parts = [f"missing {missing}"] if missing else []
    parts += [f"unexpected {extra}"] if extra else []
    return ", ".join(parts)


def validate(
    snapshot: CompactionSnapshot,
    state: AgentState,
    events: Sequence[AgentEvent],
    *,
    verify_checksum: bool,
) -> list[RuleFailure]:
    """Every rule the snapshot breaks against the authoritative state; empty when it holds.

    Unlike the seed, which stops at the first broken rule, all rules are evaluated so that a
    report shows every problem at once. Linear in the number of events and snapshot entries.
    """
    failures: list[RuleFailure] = []

    def fail(rule: RuleId, message: str) -> None:
        failures.append(RuleFailure(rule, message))

    if snapshot.goal != state.task:
        fail("goal", f"goal {snapshot.goal!r} differs from the task {state.task!r}")
    plan = state.plan
    if plan is None:
        fail("pending_work", "the state has no plan to validate against")
    if (diff := _set_difference(snapshot.constraints, state.constraints)) is not None:
        fail("constraints", diff)
    if plan is not None:
        expected_criteria = [item.to_json_data() for item in plan.acceptance_criteria]
        actual_criteria = [item.to_json_data() for item in snapshot.acceptance_criteria]
        if not canonically_equal(actual_criteria, expected_criteria):
            fail("acceptance_criteria", "acceptance criteria changed during compaction")
        expected_work = [
            {"stepId": step.id, "evidence": list(step.evidence)}
            for step in plan.steps
            if step.status == "completed"
        ]
        actual_work = [item.to_json_data() for item in snapshot.completed_work]
        if not canonically_equal(actual_work, expected_work):
            fail("completed_work", "completed work differs from the plan's completed steps")
        pending_ids = {item.step_id for item in snapshot.pending_work}
        for step in plan.steps:
            if step.status != "completed" and step.id not in pending_ids:
                fail("pending_work", f"missing pending step {step.id!r}")
    snapshot_files = set(snapshot.changed_files)
    for path in state.changed_files:
        if path not in snapshot_files:
            fail("changed_files", f"missing changed file {path!r}")
    skills = state.skills.active_skills.keys()
    if (diff := _set_difference(snapshot.active_skills, skills)) is not None:
        fail("active_skills", diff)
    if (diff := _set_difference(snapshot.failed_attempts, state.failed_attempts)) is not None:
        fail("failed_attempts", diff)
    if not canonically_equal(
        [item.to_json_data() for item in snapshot.validation_results],
        [item.to_json_data() for item in state.validations],
    ):
        fail("validation_results", "validation evidence changed during compaction")
    questions = [state.pending_user_input.question] if state.pending_user_input else []
    if (diff := _set_difference(snapshot.unresolved_questions, questions)) is not None:
        fail("unresolved_questions", diff)
    low, high = snapshot.source_event_range.from_, snapshot.source_event_range.to
    # One pass over the events instead of the seed's scan per evidence id: linear, not
    # quadratic. Only cited events are kept (the last of equal ids, as a dictionary of all
    # would), so that the pass reads each event once and stores little.
    cited = {
        event_id for decision in snapshot.decisions for event_id in decision.evidence_event_ids
    }
    sequence_of = {event.event_id: event.sequence for event in events if event.event_id in cited}
    for decision in snapshot.decisions:
        for event_id in decision.evidence_event_ids:
            sequence = sequence_of.get(event_id)
            if sequence is None:
                fail("evidence_in_range", f"unknown evidence event {event_id!r}")
            elif not low <= sequence <= high:
                fail(
                    "evidence_in_range",
                    f"evidence event {event_id!r} has sequence {sequence}, outside {low}..{high}",
                )
    if high < low:
        fail("range_not_empty", f"empty compaction range {low}..{high}")
    if verify_checksum and not checksum_matches(snapshot):
        fail("checksum", f"checksum of snapshot {snapshot.id!r} does not match its content")
    return failures
