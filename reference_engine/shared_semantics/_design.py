"""The two readings of the snapshot seed: as written, and the corrected default."""

from __future__ import annotations

from enum import StrEnum


class SnapshotDesign(StrEnum):
    """Which design a snapshot compaction follows.

    ``LITERAL`` reproduces the seed, gaps included, so that checkers can be shown to flag it.
    ``CORRECTED`` (the default) closes the gaps listed in section 8 of the snapshot spec.
    """

    LITERAL = "literal"
    CORRECTED = "corrected"
