"""The snapshot view of a scenario: authoritative agent state, its event log and context usage."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

from compactcheck.invariants import (
    ActiveSkill,
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    CompactionState,
    ContextUsage,
    PendingUserInput,
    SkillState,
    sha256_hex,
)
from compactcheck.invariants.events import EventType
from compactcheck.strategies.projected import Recorder, ViewHistories
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import Action, ToolBatch, ToolCallSpec, Turn

# Snapshot ids are derived from content, as the reference engine does, so projections are
# deterministic; the namespace is ours.
_SNAPSHOT_NAMESPACE: Final = uuid.UUID("0b7d3c1e-5a92-4f36-8d0e-51c2a7e49f10")
_RESERVED_OUTPUT: Final = 1000
# A rough price of one event in tokens: usage only has to sit on the right side of the trigger.
_TOKENS_PER_EVENT: Final = 40
# What ``AgentEvent.trusted`` calls, looked up once: a projection builds every event of a run.
_built = AgentEvent.built


@dataclass(frozen=True)
class SnapshotHistory:
    """What a snapshot compactor's harness holds: state, events, usage and pending work."""

    state: AgentState
    events: tuple[AgentEvent, ...]
    usage: ContextUsage
    pending_tool_calls: int = 0
    pending_outputs: int = 0


def usage_for(event_count: int, over_threshold: bool) -> ContextUsage:
    """A context usage on the chosen side of the 80% trigger for a log of that many events."""
    estimated = _TOKENS_PER_EVENT * max(1, event_count)
    # usable * 4 // 5 <= estimated when usable = estimated * 5 // 4; far above it at 2x + 10.
    usable = estimated * 5 // 4 if over_threshold else estimated * 2 + 10
    return ContextUsage(
        estimated_input_tokens=estimated,
        context_window_tokens=usable + _RESERVED_OUTPUT,
        reserved_output_tokens=_RESERVED_OUTPUT,
    )


class SnapshotRecorder(Recorder[SnapshotHistory]):
    """Writes the events and state of a run as it is walked."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.events: list[AgentEvent] = []
        self.snapshots: list[CompactionSnapshot] = []
        self.compacted_through = 0
        self.pending_calls = 0
        self._completions_in_range: list[tuple[str, str]] = []

    @property
    def last_sequence(self) -> int:
        """The sequence of the last event, 0 before the first."""
        return self.events[-1].sequence if self.events else 0

    def emit(self, kind: EventType, payload: dict[str, Any]) -> AgentEvent:
        """Append one event with the next sequence.

        Every payload is a fresh dict built for this event alone, with the keys its type
        requires, so the event is built without validation; the tests of the view validate every
        event it writes (and a harness validates each again when it hands it over).
        """
        events = self.events
        # Sequences run 1, 2, 3, ... as events are only ever appended here: the next is the
        # count plus one.
        sequence = len(events) + 1
        event = _built(
            {"event_id": f"ev-{sequence}", "sequence": sequence, "type": kind, "payload": payload}
        )
        events.append(event)
        return event

    def restart(self, stale_lock: bool) -> None:
        # A restart leaves no trace in this view; a crashed compaction leaves its start behind
        # only in the session view, where the lifecycle marker makes it stale.
        pass

    def compaction(self) -> None:
        through = self.last_sequence
        self.emit("compaction_started", {"through": through})
        snapshot = self.snapshot(through)
        self.snapshots.append(snapshot)
        self.compacted_through = through
        self._completions_in_range.clear()
        self.emit(
            "compaction_completed",
            {
                "snapshotId": snapshot.id,
                "sourceEventRange": snapshot.source_event_range.to_json_data(),
            },
        )

    def snapshot(self, through: int) -> CompactionSnapshot:
        """A faithful snapshot of the run so far, folding events up to ``through``."""
        truth = self.ledger.truth()
        plan = truth.plan
        body: dict[str, Any] = {
            "createdAt": f"2026-01-01T00:00:{len(self.snapshots):02d}Z",
            "sourceEventRange": {"from": self.compacted_through + 1, "to": through},
            "goal": truth.goal,
            "constraints": list(truth.constraints),
            "decisions": [
                {"statement": f"step {step_id} was completed", "evidenceEventIds": [event_id]}
                for step_id, event_id in self._completions_in_range
            ],
            "completedWork": [
                {"stepId": step.id, "evidence": list(step.evidence)}
                for step in plan.steps
                if step.status == "completed"
            ],
            "pendingWork": [
                {"stepId": step.id, "reason": f"status is {step.status}"}
                for step in plan.steps
                if step.status != "completed"
            ],
            "acceptanceCriteria": [item.to_json_data() for item in plan.acceptance_criteria],
            "activeSkills": list(truth.active_skills),
            "changedFiles": list(truth.changed_files),
            "validationResults": [item.to_json_data() for item in truth.validations],
            "unresolvedQuestions": [truth.pending_question] if truth.pending_question else [],
            "failedAttempts": list(truth.failed_attempts),
        }
        body["id"] = str(uuid.uuid5(_SNAPSHOT_NAMESPACE, sha256_hex(body)))
        body["checksum"] = sha256_hex(body)
        return CompactionSnapshot.from_json_data(body)

    def turn(self, index: int, turn: Turn, answered: str | None) -> None:
        self.ledger.turn(index, turn, answered)
        self.emit("user_input", {"text": turn.user_text})
        if answered is not None:
            self.emit("question_answered", {"question": answered, "answer": turn.answer})
        changes = (*self.ledger.scenario.constraints, *turn.constraint_changes)
        for constraint in changes if index == 0 else turn.constraint_changes:
            payload: dict[str, Any] = {"text": constraint.text, "constraintId": constraint.id}
            if constraint.supersedes is not None:
                # The reference fold drops a constraint by its text; the id is kept beside it.
                payload["supersedes"] = self.ledger.superseded_text(constraint.supersedes)
                payload["supersedesId"] = constraint.supersedes
            self.emit("constraint_added", payload)

    def action(self, action: Action) -> None:
        self.ledger.action(action)
        super().action(action)

    def say(self, text: str) -> None:
        self.emit("assistant_output", {"text": text})

    def start_step(self, step_id: str) -> None:
        self.emit("step_started", {"stepId": step_id})

    def complete_step(self, step_id: str, evidence: tuple[str, ...]) -> None:
        event = self.emit("step_completed", {"stepId": step_id, "evidence": list(evidence)})
        self._completions_in_range.append((step_id, event.event_id))

    def fail_attempt(self, text: str) -> None:
        self.emit("attempt_failed", {"text": text})

    def activate_skill(self, name: str, description: str) -> None:
        self.emit("skill_activated", {"name": name, "description": description})

    def tool_batch(self, batch: ToolBatch) -> None:
        """The batch start and one event per call."""
        self.emit(
            "tool_batch_started",
            {"batchId": batch.batch_id, "callIds": [call.call_id for call in batch.calls]},
        )
        for call in batch.calls:
            self.emit(
                "tool_call",
                {
                    "callId": call.call_id,
                    "batchId": batch.batch_id,
                    "name": call.name,
                    "arguments": call.arguments,
                },
            )

    def result(self, call: ToolCallSpec, late: bool) -> None:
        self.ledger.result(call, late)
        self.emit(
            "tool_result", {"callId": call.call_id, "output": call.output, "isError": call.is_error}
        )
        if call.edited_path is not None:
            self.emit("file_changed", {"path": call.edited_path, "callId": call.call_id})
        if call.recorded_validation is not None:
            self.emit(
                "validation_recorded", {"validation": call.recorded_validation.to_json_data()}
            )

    def question(self, question: str) -> None:
        self.ledger.question(question)
        self.emit("question_asked", {"question": question})

    def pending(self, batch: ToolBatch) -> None:
        self.ledger.pending(batch)
        self.tool_batch(batch)
        self.pending_calls += len(batch.calls)

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        self.ledger.turn_end(index, turn, last)

    def state(self) -> AgentState:
        """The authoritative state as it stands."""
        truth = self.ledger.truth()
        return AgentState(
            run_id=self.ledger.scenario.run_id,
            task=truth.goal,
            status="running",
            plan=truth.plan,
            constraints=truth.constraints,
            changed_files=truth.changed_files,
            failed_attempts=truth.failed_attempts,
            validations=truth.validations,
            pending_user_input=(
                PendingUserInput(question=truth.pending_question)
                if truth.pending_question
                else None
            ),
            skills=SkillState(
                active_skills={
                    name: ActiveSkill(name=name, description=description)
                    for name, description in truth.active_skills.items()
                }
            ),
            compaction=CompactionState(
                snapshots=tuple(self.snapshots), compacted_through_event=self.compacted_through
            ),
        )

    def history(self) -> SnapshotHistory:
        """The snapshot view as it stands (usage on the scenario's side of the trigger)."""
        return SnapshotHistory(
            state=self.state(),
            events=tuple(self.events),
            usage=usage_for(len(self.events), self.ledger.scenario.over_threshold),
            pending_tool_calls=self.pending_calls,
        )


def project_snapshot(scenario: Scenario) -> SnapshotHistory:
    """The snapshot view of a scenario."""
    return SnapshotRecorder.project(scenario)


# Scenarios projected into the snapshot view.
snapshot_histories = ViewHistories(project_snapshot)
