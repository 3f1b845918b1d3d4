"""Compaction snapshots: the draft a compactor returns and the sealed snapshot kept in state."""

from __future__ import annotations

from pydantic import Field

from compactcheck.invariants.plan import AcceptanceCriterion, ValidationRecord
from compactcheck.invariants.wire import WireModel


class SourceEventRange(WireModel):
    """The inclusive range of event sequences a snapshot folds."""

    from_: int = Field(alias="from")
    to: int


class Decision(WireModel):
    """A decision taken during the run, with the events that justify it."""

    statement: str
    evidence_event_ids: tuple[str, ...] = ()


class CompletedWork(WireModel):
    """A completed plan step and its evidence."""

    step_id: str
    evidence: tuple[str, ...] = ()


class PendingWork(WireModel):
    """A plan step that still has to be done, and why."""

    step_id: str
    reason: str = ""


class SnapshotContent(WireModel):
    """What a snapshot says about the run: the fields a compactor fills in."""

    goal: str
    constraints: tuple[str, ...] = ()
    decisions: tuple[Decision, ...] = ()
    completed_work: tuple[CompletedWork, ...] = ()
    pending_work: tuple[PendingWork, ...] = ()
    acceptance_criteria: tuple[AcceptanceCriterion, ...] = ()
    active_skills: tuple[str, ...] = ()
    changed_files: tuple[str, ...] = ()
    validation_results: tuple[ValidationRecord, ...] = ()
    unresolved_questions: tuple[str, ...] = ()
    failed_attempts: tuple[str, ...] = ()


class SnapshotDraft(SnapshotContent):
    """What a compactor returns: every snapshot field except id, createdAt and checksum.

    ``source_event_range`` may be left out: the harness sets it from the range it handed over.
    """

    source_event_range: SourceEventRange | None = None


class CompactionSnapshot(SnapshotContent):
    """A sealed snapshot: the draft plus identity, time, range and an RFC 8785 SHA-256 checksum."""

    id: str
    created_at: str
    source_event_range: SourceEventRange
    checksum: str


class CompactionState(WireModel):
    """What a run remembers of its compactions."""

    snapshots: tuple[CompactionSnapshot, ...] = ()
    # Sequence of the last event already folded; starts below the first event.
    compacted_through_event: int = 0
    # Opaque items from a provider-side compaction: stored, never trusted as task state.
    provider_items: tuple[object, ...] | None = None
