"""The reference message compactor for the messages view (OpenAI chat dicts in and out)."""

from compactcheck.reference_engine.messages.compactor import (
    DEFAULT_MAX_MESSAGES,
    ReferenceMessages,
    Summariser,
    compact_messages,
    head_end,
    reference_messages,
)
from compactcheck.reference_engine.messages.cut import safe_cuts
from compactcheck.reference_engine.messages.native import (
    NativeReference,
    reference_for,
    summary_item,
    units_of,
)
from compactcheck.reference_engine.messages.summary import summarise, summary_lines

__all__ = [
    "DEFAULT_MAX_MESSAGES",
    "NativeReference",
    "ReferenceMessages",
    "Summariser",
    "compact_messages",
    "head_end",
    "reference_for",
    "reference_messages",
    "safe_cuts",
    "summarise",
    "summary_item",
    "summary_lines",
    "units_of",
]
