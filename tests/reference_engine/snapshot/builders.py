"""Small builders of states and events for the snapshot engine tests."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import AgentEvent, AgentState, ContextUsage

OVER_TRIGGER = ContextUsage(
    estimated_input_tokens=82_000, context_window_tokens=100_000, reserved_output_tokens=10_000
)


def event(sequence: int, kind: str, **payload: Any) -> AgentEvent:
    """An event with id e<sequence>."""
    return AgentEvent.from_json_data(
        {"eventId": f"e{sequence}", "sequence": sequence, "type": kind, "payload": payload}
    )


def long_running_state(**changes: Any) -> AgentState:
    """A run midway: two steps done, one in progress, one pending (the seed's fixture shape)."""
    data: dict[str, Any] = {
        "runId": "run-1",
        "task": "Migrate the settings loader to TOML",
        "plan": {
            "steps": [
                {"id": "inspect", "status": "completed", "evidence": ["read loader.py"]},
                {"id": "convert", "status": "completed", "evidence": ["loader.py parses TOML"]},
                {"id": "update-docs", "status": "in_progress"},
                {"id": "run-tests", "status": "pending"},
            ],
            "acceptanceCriteria": [{"id": "ac1", "description": "old INI files still load"}],
        },
        "constraints": ["no new runtime dependencies"],
        "changedFiles": ["loader.py", "docs/settings.md"],
        "failedAttempts": ["tomllib cannot write files"],
        "validations": [{"command": "pytest", "passed": True, "summary": "31 passed"}],
        "skills": {"activeSkills": {"docs": {"name": "docs"}}},
    }
    data.update(changes)
    return AgentState.from_json_data(data)


def events_through_completed_step(count_notes: int = 20) -> list[AgentEvent]:
    """Events that agree with long_running_state, followed by enough notes to be worth folding."""
    events = [
        event(1, "user_input", text="Please move the settings loader from INI to TOML."),
        event(2, "constraint_added", text="no new runtime dependencies"),
        event(3, "skill_activated", name="docs"),
        event(4, "step_started", stepId="inspect"),
        event(5, "tool_batch_started", batchId="b1", callIds=["c1"]),
        event(6, "tool_call", callId="c1", batchId="b1", name="read", arguments="{}"),
        event(7, "tool_result", callId="c1", output="def load(path): ...", isError=False),
        event(8, "step_completed", stepId="inspect"),
        event(9, "file_changed", path="loader.py"),
        event(10, "attempt_failed", text="tomllib cannot write files"),
        event(
            11,
            "validation_recorded",
            validation={"command": "pytest", "passed": True, "summary": "31 passed"},
        ),
        event(12, "step_completed", stepId="convert"),
        event(13, "file_changed", path="docs/settings.md"),
    ]
    for offset in range(count_notes):
        events.append(
            event(14 + offset, "assistant_output", text=f"Rewriting section {offset} of the docs.")
        )
    return events
