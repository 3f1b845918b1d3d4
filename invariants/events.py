"""Agent events: the append-only record a snapshot compactor folds."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, model_validator

from compactcheck.invariants.wire import WireModel

EventType = Literal[
    "user_input",
    "assistant_output",
    "step_started",
    "step_completed",
    "tool_batch_started",
    "tool_call",
    "tool_result",
    "file_changed",
    "validation_recorded",
    "constraint_added",
    "attempt_failed",
    "skill_activated",
    "question_asked",
    "question_answered",
    "compaction_started",
    "compaction_completed",
    "compaction_failed",
]

# Payload keys each event type must carry; more keys are allowed.
REQUIRED_PAYLOAD: dict[str, tuple[str, ...]] = {
    "user_input": ("text",),
    "assistant_output": ("text",),
    "step_started": ("stepId",),
    "step_completed": ("stepId",),
    "tool_batch_started": ("batchId", "callIds"),
    "tool_call": ("callId", "batchId", "name", "arguments"),
    "tool_result": ("callId", "output", "isError"),
    "file_changed": ("path",),
    "validation_recorded": ("validation",),
    "constraint_added": ("text",),
    "attempt_failed": ("text",),
    "skill_activated": ("name",),
    "question_asked": ("question",),
    "question_answered": ("question", "answer"),
    "compaction_started": ("through",),
    "compaction_completed": ("snapshotId", "sourceEventRange"),
    "compaction_failed": ("reason",),
}


class AgentEvent(WireModel):
    """One event of a run: a unique id, a strictly increasing sequence, a type and a payload."""

    event_id: str
    sequence: int
    type: EventType
    payload: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _payload_has_required_keys(self) -> Self:
        payload = self.payload
        for key in REQUIRED_PAYLOAD[self.type]:
            if key not in payload:
                missing = [key for key in REQUIRED_PAYLOAD[self.type] if key not in payload]
                raise ValueError(
                    f"event {self.event_id!r} of type {self.type!r} lacks payload key(s) "
                    f"{', '.join(missing)}"
                )
        return self

    @classmethod
    def trusted(
        cls, event_id: str, sequence: int, type: EventType, payload: dict[str, Any]
    ) -> AgentEvent:
        """Build an event from values already known to be valid (bulk generation only)."""
        return cls.built(
            {"event_id": event_id, "sequence": sequence, "type": type, "payload": payload}
        )

    def text(self, key: str) -> str:
        """A payload value as a string ('' when absent or not a string)."""
        value = self.payload.get(key)
        return value if isinstance(value, str) else ""
