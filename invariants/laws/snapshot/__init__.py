"""The snapshot-view laws: what a sealed snapshot and its raw tail must keep."""

from __future__ import annotations

from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.snapshot import folding, kept

SnapshotLaw = Invariant[SnapshotBefore, SnapshotAfter]

# Catalogue order: reports and listings show the laws in this order.
LAWS: tuple[SnapshotLaw, ...] = (
    kept.goal_preserved,
    kept.constraints_preserved,
    kept.acceptance_criteria_preserved,
    kept.completed_work_preserved,
    kept.pending_steps_preserved,
    kept.changed_files_preserved,
    kept.active_skills_preserved,
    kept.failed_attempts_preserved,
    kept.validation_results_preserved,
    kept.unresolved_questions_preserved,
    folding.evidence_in_range,
    folding.source_range_valid,
    folding.checksum_valid,
    folding.raw_tail_preserved,
    folding.tool_pairing,
    folding.state_untouched,
    folding.progress,
)

__all__ = ["LAWS", "SnapshotLaw"]
