"""The session reference engine (seed 002): log, surface, pairing, compaction transaction."""

from compactcheck.reference_engine.session.backend import (
    ReferenceSessionCompactor,
    logged_capacity,
    reference_session_compactor,
)
from compactcheck.reference_engine.session.command import (
    COMMAND_TEXT,
    NOTHING_TEXT,
    USAGE_TEXT,
    CommandOutcome,
    run_compact_command,
)
from compactcheck.reference_engine.session.compactor import (
    AutomaticTrigger,
    BasicCompactor,
    CapacityLookup,
)
from compactcheck.reference_engine.session.config import (
    CompactionConfig,
    CompactSpec,
    ModelPolicy,
    TargetPolicy,
    load_config,
    resolve_compact_spec,
    resolve_target_policy,
)
from compactcheck.reference_engine.session.errors import (
    AbortError,
    ConfigError,
    ManualCode,
    ManualCompactionError,
    NoOpenTurnError,
    PayloadError,
    PressureNotRelievedError,
    ReentrantAppendError,
    RegionError,
    SummaryError,
    SurfaceChangedError,
    TargetPressureConfigError,
    render_error_chain,
)
from compactcheck.reference_engine.session.listeners import (
    CONTEXT_WINDOW_EXCEEDED_CODE,
    OverflowRecovery,
    PreStepPressure,
)
from compactcheck.reference_engine.session.lock import (
    EntryState,
    assert_compaction_inactive,
    inspect_entry_state,
)
from compactcheck.reference_engine.session.log import Session, StepClock
from compactcheck.reference_engine.session.manual import (
    IdleHost,
    Maintenance,
    MaintenanceHost,
    MaintenanceUnavailableError,
    compact_now,
)
from compactcheck.reference_engine.session.meter import Measurement, PricedNode, TokenMeter
from compactcheck.reference_engine.session.pairing import (
    ToolPairing,
    balanced_after,
    balanced_before,
)
from compactcheck.reference_engine.session.pruner import (
    PRUNE_MARKER,
    PrunerConfig,
    PruneReport,
    load_pruner_config,
    measure_content,
    prune_content,
    prune_session,
)
from compactcheck.reference_engine.session.repair import interrupted_turn_closers
from compactcheck.reference_engine.session.routing import RoutedRequest, latest_route
from compactcheck.reference_engine.session.selection import SurfaceRange, select_compactable_range
from compactcheck.reference_engine.session.signal import AbortSignal
from compactcheck.reference_engine.session.summariser import (
    CLOSE_TAG,
    OPEN_TAG,
    FunctionSummariser,
    SummarisationInput,
    Summariser,
    SummaryDraft,
    TextSummariser,
    frame_summary,
    safe_summary,
)
from compactcheck.reference_engine.session.surface import (
    Replacement,
    SurfaceFold,
    derive_messages,
    fold_surface,
)
from compactcheck.reference_engine.session.transaction import (
    CompactionResult,
    IdMinter,
    TransactionOutcome,
    TransactionParts,
    run_transaction,
)

__all__ = [
    "CLOSE_TAG",
    "COMMAND_TEXT",
    "CONTEXT_WINDOW_EXCEEDED_CODE",
    "NOTHING_TEXT",
    "OPEN_TAG",
    "PRUNE_MARKER",
    "USAGE_TEXT",
    "AbortError",
    "AbortSignal",
    "AutomaticTrigger",
    "BasicCompactor",
    "CapacityLookup",
    "CommandOutcome",
    "CompactSpec",
    "CompactionConfig",
    "CompactionResult",
    "ConfigError",
    "EntryState",
    "FunctionSummariser",
    "IdMinter",
    "IdleHost",
    "Maintenance",
    "MaintenanceHost",
    "MaintenanceUnavailableError",
    "ManualCode",
    "ManualCompactionError",
    "Measurement",
    "ModelPolicy",
    "NoOpenTurnError",
    "OverflowRecovery",
    "PayloadError",
    "PreStepPressure",
    "PressureNotRelievedError",
    "PricedNode",
    "PruneReport",
    "PrunerConfig",
    "ReentrantAppendError",
    "ReferenceSessionCompactor",
    "RegionError",
    "Replacement",
    "RoutedRequest",
    "Session",
    "StepClock",
    "SummarisationInput",
    "Summariser",
    "SummaryDraft",
    "SummaryError",
    "SurfaceChangedError",
    "SurfaceFold",
    "SurfaceRange",
    "TargetPolicy",
    "TargetPressureConfigError",
    "TextSummariser",
    "TokenMeter",
    "ToolPairing",
    "TransactionOutcome",
    "TransactionParts",
    "assert_compaction_inactive",
    "balanced_after",
    "balanced_before",
    "compact_now",
    "derive_messages",
    "fold_surface",
    "frame_summary",
    "inspect_entry_state",
    "interrupted_turn_closers",
    "latest_route",
    "load_config",
    "load_pruner_config",
    "logged_capacity",
    "measure_content",
    "prune_content",
    "prune_session",
    "reference_session_compactor",
    "render_error_chain",
    "resolve_compact_spec",
    "resolve_target_policy",
    "run_compact_command",
    "run_transaction",
    "safe_summary",
    "select_compactable_range",
]
