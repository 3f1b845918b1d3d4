"""Broken snapshot compactors and pipelines, each failing one law the way real ones do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from compactcheck.invariants import (
    AcceptanceCriterion,
    AgentEvent,
    CompactionSnapshot,
    CompactorInput,
    CompletedWork,
    PendingWork,
    SnapshotDraft,
    SourceEventRange,
)
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.reference_engine.shared_semantics import (
    SNAPSHOT_NAMESPACE,
    SnapshotDesign,
    checksum_of,
    seal,
)
from compactcheck.reference_engine.snapshot import ReferenceCompactor, SnapshotPipeline

Edit = Callable[[SnapshotDraft, CompactorInput], SnapshotDraft]


@dataclass(frozen=True)
class EditedCompactor:
    """The reference compactor with its draft edited afterwards (the injected bug)."""

    edit: Edit

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Compact correctly, then apply the bug."""
        return self.edit(ReferenceCompactor().compact(compactor_input), compactor_input)


def _shorten_goal(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # A summariser that "tidies" long goals into a headline.
    goal = draft.goal if len(draft.goal) <= 24 else draft.goal[:24].rstrip() + "..."
    return draft.model_copy(update={"goal": goal})


def _constraints_from_events(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Rebuilds constraints from the events it saw and forgets that an update replaces a value.
    texts = [e.text("text") for e in handed.events if e.type == "constraint_added"]
    previous = handed.previous_snapshot.constraints if handed.previous_snapshot else ()
    return draft.model_copy(update={"constraints": tuple(dict.fromkeys((*previous, *texts)))})


def _criteria_marked_done(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # An optimistic summary that reports every criterion as met.
    criteria = tuple(
        AcceptanceCriterion(id=c.id, description=c.description, satisfied=True, evidence=c.evidence)
        for c in draft.acceptance_criteria
    )
    return draft.model_copy(update={"acceptance_criteria": criteria})


def _evidence_dropped(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Keeps the completed step ids but drops their evidence to save space.
    work = tuple(CompletedWork(step_id=w.step_id) for w in draft.completed_work)
    return draft.model_copy(update={"completed_work": work})


def _in_progress_forgotten(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Only steps that never started count as pending: the step in progress is lost.
    status = {step.id: step.status for step in handed.plan.steps}
    work = tuple(w for w in draft.pending_work if status.get(w.step_id) == "pending")
    return draft.model_copy(update={"pending_work": work})


def _drop_oldest_file(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # A "keep the recent ones" heuristic that only bites with three or more files.
    files = draft.changed_files
    return draft.model_copy(update={"changed_files": files[1:] if len(files) >= 3 else files})


def _skill_descriptions(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Reads the skill map by its values and reports descriptions where names belong.
    skills = handed.state.skills.active_skills if handed.state is not None else {}
    described = tuple(skill.description or name for name, skill in skills.items())
    return draft.model_copy(update={"active_skills": described})


def _latest_failure_only(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    return draft.model_copy(update={"failed_attempts": draft.failed_attempts[-1:]})


def _passing_validations_only(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Reports the green runs, quietly dropping the red ones.
    kept = tuple(v for v in draft.validation_results if v.passed)
    return draft.model_copy(update={"validation_results": kept})


def _question_dropped(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    return draft.model_copy(update={"unresolved_questions": ()})


def _old_decisions_carried(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Carries the previous snapshot's decisions over, with their evidence from an older range
    # (only a second compaction, or a run with an earlier one, can show it).
    old = handed.previous_snapshot.decisions if handed.previous_snapshot else ()
    return draft.model_copy(update={"decisions": (*old, *draft.decisions)})


def _plan_steps_pending(draft: SnapshotDraft, handed: CompactorInput) -> SnapshotDraft:
    # Re-lists every step as pending "to be safe": finished work would be redone.
    work = tuple(PendingWork(step_id=s.id, reason="re-check") for s in handed.plan.steps)
    return draft.model_copy(update={"pending_work": work})


@dataclass(frozen=True)
class InPlaceTruncator:
    """Shortens tool outputs in the events it was handed, in place, to save tokens."""

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Truncate tool outputs in place, then compact."""
        for event in compactor_input.events:
            output = event.payload.get("output")
            if event.type == "tool_result" and isinstance(output, str) and len(output) > 8:
                event.payload["output"] = output[:8]
        return ReferenceCompactor().compact(compactor_input)


def _seal_off_by_one(
    draft: SnapshotDraft, source: SourceEventRange, when: datetime
) -> CompactionSnapshot:
    shorter = SourceEventRange.model_validate({"from": source.from_, "to": source.to - 1})
    return seal(draft, shorter, when)


def _seal_checksum_too_early(
    draft: SnapshotDraft, source: SourceEventRange, when: datetime
) -> CompactionSnapshot:
    # Hashes the draft before the range, id and time are added.
    import uuid

    body = draft.to_json_data()
    checksum = checksum_of(body)
    body["sourceEventRange"] = source.to_json_data()
    body["createdAt"] = when.isoformat()
    body["id"] = str(uuid.uuid5(SNAPSHOT_NAMESPACE, checksum))
    body["checksum"] = checksum
    return CompactionSnapshot.from_json_data(body)


def _tail_last_n(
    size: int,
) -> Callable[[CompactionSnapshot, Sequence[AgentEvent]], tuple[AgentEvent, ...]]:
    def tail(snapshot: CompactionSnapshot, events: Sequence[AgentEvent]) -> tuple[AgentEvent, ...]:
        # Keeps the last N events whatever they are: may start between a call and its result.
        return tuple(events[-size:]) if size else ()

    return tail


def _tail_pruned(
    snapshot: CompactionSnapshot, events: Sequence[AgentEvent]
) -> tuple[AgentEvent, ...]:
    # Prunes tool outputs inside the tail it keeps: the tail is no longer what happened.
    kept = events[-6:]
    return tuple(
        event.model_copy(update={"payload": {**event.payload, "output": "[pruned]"}})
        if event.type == "tool_result"
        else event
        for event in kept
    )


def _edited(edit: Edit) -> Callable[[], SnapshotPipeline]:
    return lambda: SnapshotPipeline(compactor=EditedCompactor(edit))


def _literal_tail() -> SnapshotPipeline:
    # The seed's tail: reaches back to the last user input, however old.
    return SnapshotPipeline(
        design=SnapshotDesign.LITERAL,
        input_design=SnapshotDesign.CORRECTED,
        decline_without_progress=False,
    )


# A snapshot compaction is only worth making once the history outweighs the snapshot (the
# reference declines otherwise), so the smallest history that compacts at all has about
# fifteen events: that, not the bug, sets the floor of a shrunk witness here.
SNAPSHOT_WITNESS_BOUND = 24


def _mutant(
    name: str, targets: str, description: str, build: Callable[[], SnapshotPipeline]
) -> Mutant:
    return Mutant(name, "snapshot", targets, description, build, SNAPSHOT_WITNESS_BOUND)


SNAPSHOT_MUTANTS: tuple[Mutant, ...] = (
    _mutant(
        "snapshot-shorten-goal",
        "goal_preserved",
        "cuts a long goal down to a 24-character headline",
        _edited(_shorten_goal),
    ),
    _mutant(
        "snapshot-stale-constraint",
        "constraints_preserved",
        "rebuilds constraints from events and keeps values an update replaced",
        _edited(_constraints_from_events),
    ),
    _mutant(
        "snapshot-criteria-marked-done",
        "acceptance_criteria_preserved",
        "reports every acceptance criterion as satisfied",
        _edited(_criteria_marked_done),
    ),
    _mutant(
        "snapshot-evidence-dropped",
        "completed_work_preserved",
        "keeps completed steps but drops their evidence",
        _edited(_evidence_dropped),
    ),
    _mutant(
        "snapshot-in-progress-forgotten",
        "pending_steps_preserved",
        "counts only never-started steps as pending",
        _edited(_in_progress_forgotten),
    ),
    _mutant(
        "snapshot-completed-redone",
        "pending_steps_preserved",
        "lists completed steps as pending again",
        _edited(_plan_steps_pending),
    ),
    _mutant(
        "snapshot-drop-oldest-file",
        "changed_files_preserved",
        "drops the oldest changed file once there are three or more",
        _edited(_drop_oldest_file),
    ),
    _mutant(
        "snapshot-skill-descriptions",
        "active_skills_preserved",
        "reports skill descriptions where skill names belong",
        _edited(_skill_descriptions),
    ),
    _mutant(
        "snapshot-latest-failure-only",
        "failed_attempts_preserved",
        "keeps only the most recent failed attempt",
        _edited(_latest_failure_only),
    ),
    _mutant(
        "snapshot-passing-validations-only",
        "validation_results_preserved",
        "drops failed validation runs",
        _edited(_passing_validations_only),
    ),
    _mutant(
        "snapshot-question-dropped",
        "unresolved_questions_preserved",
        "forgets the question pending for the user",
        _edited(_question_dropped),
    ),
    _mutant(
        "snapshot-stale-evidence",
        "evidence_in_range",
        "carries old decisions over with evidence from outside the range",
        _edited(_old_decisions_carried),
    ),
    _mutant(
        "snapshot-range-off-by-one",
        "source_range_valid",
        "seals the range one event short",
        lambda: SnapshotPipeline(sealer=_seal_off_by_one),
    ),
    _mutant(
        "snapshot-checksum-too-early",
        "checksum_valid",
        "hashes the draft before the id, time and range are added",
        lambda: SnapshotPipeline(sealer=_seal_checksum_too_early),
    ),
    _mutant(
        "snapshot-tail-pruned",
        "raw_tail_preserved",
        "rewrites tool outputs inside the raw tail",
        lambda: SnapshotPipeline(tail=_tail_pruned),
    ),
    _mutant(
        "snapshot-tail-last-n",
        "tool_pairing",
        "keeps the last three events, even between a call and its result",
        lambda: SnapshotPipeline(tail=_tail_last_n(3)),
    ),
    _mutant(
        "snapshot-truncate-in-place",
        "state_untouched",
        "truncates tool outputs in the events it was handed, in place",
        lambda: SnapshotPipeline(compactor=InPlaceTruncator()),
    ),
    _mutant(
        "snapshot-literal-tail",
        "progress",
        "the seed's tail, which reaches back to the last user input however old",
        _literal_tail,
    ),
)
