"""The one contract the harness shares with the reference compactors.

The harness (``compactcheck.harness``) prepares a target's input and observes its answer; the
reference compactors and mutants (the rest of ``reference_engine``) are targets it judges. What
both must read the same way lives here and nowhere else: when a snapshot compaction may happen
and what the compactor is handed, how a draft is sealed, which raw tail follows a snapshot and
how large the context is, the frame that runs those steps around any snapshot compactor, and
the shape of a session compactor. The harness imports nothing else from ``reference_engine``,
and this package imports nothing from the rest of it, so a change to a reference compactor or
a mutant cannot change a third-party target's verdict.
"""

from compactcheck.reference_engine.shared_semantics._design import SnapshotDesign
from compactcheck.reference_engine.shared_semantics._frame import (
    Compactor,
    Sealer,
    SnapshotFrame,
    TailSelector,
)
from compactcheck.reference_engine.shared_semantics._handover import (
    CompactionError,
    compactor_input,
    is_safe_boundary,
)
from compactcheck.reference_engine.shared_semantics._sealing import (
    SNAPSHOT_NAMESPACE,
    checksum_matches,
    checksum_of,
    seal,
)
from compactcheck.reference_engine.shared_semantics._session import (
    GeneratedCompactor,
    SessionCompactor,
)
from compactcheck.reference_engine.shared_semantics._tail import (
    CompactedContext,
    ToolPairs,
    assembled_chars,
    context_chars,
    context_sources,
    corrected_boundary,
    event_source,
    literal_boundary,
    project,
    tail_orphans,
)

__all__ = [
    "SNAPSHOT_NAMESPACE",
    "CompactedContext",
    "CompactionError",
    "Compactor",
    "GeneratedCompactor",
    "Sealer",
    "SessionCompactor",
    "SnapshotDesign",
    "SnapshotFrame",
    "TailSelector",
    "ToolPairs",
    "assembled_chars",
    "checksum_matches",
    "checksum_of",
    "compactor_input",
    "context_chars",
    "context_sources",
    "corrected_boundary",
    "event_source",
    "is_safe_boundary",
    "literal_boundary",
    "project",
    "seal",
    "tail_orphans",
]
