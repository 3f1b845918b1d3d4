"""The snapshot reference engine (seed 000): trigger, boundary, sealing, rules, tail, loop."""

from reference_engine.snapshot.compactor import Compactor, FixedCompactor, ReferenceCompactor
from reference_engine.snapshot.engine import (
    CompactionError,
    CompactionOutcome,
    EngineConfig,
    OutcomeKind,
    compactor_input,
    context_chars,
    maybe_compact,
)
from reference_engine.snapshot.history import HistoryError, ToolPairs, check_history
from reference_engine.snapshot.mode import Mode
from reference_engine.snapshot.pipeline import SnapshotPipeline
from reference_engine.snapshot.rules import (
    ALL_RULES,
    RULE_STATEMENTS,
    SEED_RULES,
    RuleFailure,
    RuleId,
    validate,
)
from reference_engine.snapshot.sealing import checksum_matches, checksum_of, seal
from reference_engine.snapshot.tail import (
    CompactedContext,
    assembled_chars,
    context_sources,
    corrected_boundary,
    literal_boundary,
    project,
    tail_orphans,
)
from reference_engine.snapshot.threshold import is_safe_boundary, should_compact, trigger_tokens

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
    "Mode",
    "OutcomeKind",
    "ReferenceCompactor",
    "RuleFailure",
    "RuleId",
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
