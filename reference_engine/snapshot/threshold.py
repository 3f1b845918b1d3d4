"""When to compact: the token trigger (the safe boundary is shared_semantics.is_safe_boundary)."""

from __future__ import annotations

from compactcheck.invariants import ContextUsage

TRIGGER_RATIO_NUMERATOR = 4
TRIGGER_RATIO_DENOMINATOR = 5


def trigger_tokens(usage: ContextUsage) -> int:
    """The input size at which compaction starts: 80% of the usable window, rounded down."""
    usable = usage.context_window_tokens - usage.reserved_output_tokens
    # Integer arithmetic keeps floor(usable * 0.8) exact for every int.
    return (usable * TRIGGER_RATIO_NUMERATOR) // TRIGGER_RATIO_DENOMINATOR


def should_compact(usage: ContextUsage) -> bool:
    """Whether the estimated input has reached the trigger."""
    return usage.estimated_input_tokens >= trigger_tokens(usage)
