"""The deterministic reference snapshot compactor (the contract is shared_semantics.Compactor)."""

from __future__ import annotations

from compactcheck.invariants import (
    AgentEvent,
    CompactorInput,
    CompletedWork,
    Decision,
    PendingWork,
    SnapshotDraft,
    ValidationRecord,
)


class _EventFold:
    """What the events in range say about constraints, attempts, validations and questions."""

    def __init__(self, events: tuple[AgentEvent, ...]) -> None:
        constraints: dict[str, None] = {}
        attempts: dict[str, None] = {}
        validations: list[ValidationRecord] = []
        questions: dict[str, None] = {}
        decisions: list[Decision] = []
        for event in events:
            if event.type == "constraint_added":
                replaced = event.text("supersedes")
                constraints.pop(replaced, None)
                constraints[event.text("text")] = None
            elif event.type == "attempt_failed":
                attempts[event.text("text")] = None
            elif event.type == "validation_recorded":
                validations.append(ValidationRecord.from_json_data(event.payload["validation"]))
            elif event.type == "question_asked":
                questions[event.text("question")] = None
            elif event.type == "question_answered":
                questions.pop(event.text("question"), None)
            elif event.type == "step_completed":
                decisions.append(
                    Decision(
                        statement=f"step {event.text('stepId')} was completed",
                        evidence_event_ids=(event.event_id,),
                    )
                )
        self.constraints = tuple(constraints)
        self.failed_attempts = tuple(attempts)
        self.validations = tuple(validations)
        self.questions = tuple(questions)
        self.decisions = tuple(decisions)


class ReferenceCompactor:
    """A deterministic compactor that builds a correct draft from what it is handed.

    With the authoritative state in its input (corrected design) it copies the state. With only
    the seed's five fields (literal design) it can only fold the events in range, so on a second
    compaction it loses what earlier events said: exactly the seed's gap, reproduced honestly.
    """

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Fold the input into a draft."""
        fold = _EventFold(compactor_input.events)
        plan = compactor_input.plan
        state = compactor_input.state
        completed = tuple(
            CompletedWork(step_id=step.id, evidence=step.evidence)
            for step in plan.steps
            if step.status == "completed"
        )
        pending = tuple(
            PendingWork(step_id=step.id, reason=f"status is {step.status}")
            for step in plan.steps
            if step.status != "completed"
        )
        questions: tuple[str, ...]
        if state is not None:
            constraints = state.constraints
            failed_attempts = state.failed_attempts
            validations = state.validations
            questions = (state.pending_user_input.question,) if state.pending_user_input else ()
        else:
            constraints = fold.constraints
            failed_attempts = fold.failed_attempts
            validations = fold.validations
            questions = fold.questions
        return SnapshotDraft(
            goal=compactor_input.task,
            constraints=constraints,
            decisions=fold.decisions,
            completed_work=completed,
            pending_work=pending,
            acceptance_criteria=plan.acceptance_criteria,
            active_skills=compactor_input.active_skill_names,
            changed_files=compactor_input.changed_files,
            validation_results=validations,
            unresolved_questions=questions,
            failed_attempts=failed_attempts,
        )


class FixedCompactor:
    """A compactor that returns a given draft whatever it is handed (for golden cases)."""

    def __init__(self, draft: SnapshotDraft) -> None:
        self.draft = draft

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Return the fixed draft."""
        del compactor_input
        return self.draft
