"""The shared snapshot frame around the reference compactor, as the reference target runs it."""

from __future__ import annotations

from dataclasses import dataclass, field

from compactcheck.reference_engine.shared_semantics import Compactor, SnapshotFrame
from compactcheck.reference_engine.snapshot.compactor import ReferenceCompactor


@dataclass(frozen=True)
class SnapshotPipeline(SnapshotFrame):
    """The frame of ``shared_semantics`` with the reference compactor unless another is given."""

    compactor: Compactor = field(default_factory=ReferenceCompactor)
