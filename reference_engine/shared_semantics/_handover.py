"""When a snapshot compactor may be called, and what it is handed."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants import AgentEvent, AgentState, CompactorInput, RunStatus
from compactcheck.reference_engine.shared_semantics._design import SnapshotDesign


class CompactionError(RuntimeError):
    """Compaction could not even start (no plan, a broken history)."""


def is_safe_boundary(status: RunStatus, pending_tool_calls: int, pending_outputs: int) -> bool:
    """Whether the run is at a point where compaction may happen."""
    return status == "running" and pending_tool_calls == 0 and pending_outputs == 0


def compactor_input(
    state: AgentState, events: Sequence[AgentEvent], design: SnapshotDesign
) -> CompactorInput:
    """The compactor's input: the seed's five fields (+ state and snapshot when corrected).

    Built without validating: every value is taken from a state and events that are models
    already (validated where they were made), which validating again would only copy, at about
    half a microsecond an event.
    """
    if state.plan is None:
        raise CompactionError("cannot compact before plan initialization")
    low = state.compaction.compacted_through_event + 1
    high = events[-1].sequence if events else low - 1
    in_range = tuple(event for event in events if low <= event.sequence <= high)
    corrected = design is SnapshotDesign.CORRECTED
    previous = state.compaction.snapshots[-1] if state.compaction.snapshots else None
    return CompactorInput.built(
        {
            "task": state.task,
            "plan": state.plan,
            "events": in_range,
            "active_skill_names": tuple(state.skills.active_skills),
            "changed_files": state.changed_files,
            "state": state if corrected else None,
            "previous_snapshot": previous if corrected else None,
        }
    )
