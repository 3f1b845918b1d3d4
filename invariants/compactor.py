"""The contract of a snapshot compactor: what it is handed."""

from __future__ import annotations

from compactcheck.invariants.events import AgentEvent
from compactcheck.invariants.plan import TaskPlan
from compactcheck.invariants.snapshot import CompactionSnapshot
from compactcheck.invariants.state import AgentState
from compactcheck.invariants.wire import WireModel


class CompactorInput(WireModel):
    """What a snapshot compactor receives.

    The seed hands over only the first five fields. The corrected design also hands over the
    authoritative ``state`` and the ``previous_snapshot``, so that a second compaction can
    still see what the first one folded (gap "second compaction cannot see earlier state").
    """

    task: str
    plan: TaskPlan
    events: tuple[AgentEvent, ...]
    active_skill_names: tuple[str, ...] = ()
    changed_files: tuple[str, ...] = ()
    state: AgentState | None = None
    previous_snapshot: CompactionSnapshot | None = None
