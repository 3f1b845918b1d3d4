"""The two behaviours of the snapshot engine: the seed as written, and the corrected default."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """Which design the snapshot engine follows.

    ``LITERAL`` reproduces the seed, gaps included, so that checkers can be shown to flag it.
    ``CORRECTED`` (the default) closes the gaps listed in section 8 of the snapshot spec.
    """

    LITERAL = "literal"
    CORRECTED = "corrected"
