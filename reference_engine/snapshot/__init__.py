"""The snapshot reference engine (seed 000): trigger, validation rules, compactor, loop.

What the engine shares with the harness (safe boundary, input, sealing, tail, the frame around
a compactor) lives in ``compactcheck.reference_engine.shared_semantics``; it is re-exported here as
the engine's vocabulary.
"""

from compactcheck.reference_engine.shared_semantics import (
    CompactedContext,
    CompactionError,
    Compactor,
    SnapshotDesign,
    ToolPairs,
    assembled_chars,
    checksum_matches,
    checksum_of,
    compactor_input,
    context_chars,
    context_sources,
    corrected_boundary,
    is_safe_boundary,
    literal_boundary,
    project,
    seal,
    tail_orphans,
)
from compactcheck.reference_engine.snapshot.compactor import FixedCompactor, ReferenceCompactor
from compactcheck.reference_engine.snapshot.engine import (
    CompactionOutcome,
    EngineConfig,
    OutcomeKind,
    maybe_compact,
)
from compactcheck.reference_engine.snapshot.history import HistoryError, check_history
from compactcheck.reference_engine.snapshot.pipeline import SnapshotPipeline
from compactcheck.reference_engine.snapshot.rules import (
    ALL_RULES,
    RULE_STATEMENTS,
    SEED_RULES,
    RuleFailure,
    RuleId,
    validate,
)
from compactcheck.reference_engine.snapshot.threshold import should_compact, trigger_tokens

__all__ = [
    "ALL_RULES",
    "RULE_STATEMENTS",
    "SEED_RULES",
    "CompactedContext",
    "CompactionError",
    "CompactionOutcome",
    "Compactor",
    "EngineConfig",
    "FixedCompactor",
    "HistoryError",
    "OutcomeKind",
    "ReferenceCompactor",
    "RuleFailure",
    "RuleId",
    "SnapshotDesign",
    "SnapshotPipeline",
    "ToolPairs",
    "assembled_chars",
    "check_history",
    "checksum_matches",
    "checksum_of",
    "compactor_input",
    "context_chars",
    "context_sources",
    "corrected_boundary",
    "is_safe_boundary",
    "literal_boundary",
    "maybe_compact",
    "project",
    "seal",
    "should_compact",
    "tail_orphans",
    "trigger_tokens",
    "validate",
]
