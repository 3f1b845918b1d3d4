"""Context accounting and the sources assembled into the model's next prompt."""

from __future__ import annotations

from compactcheck.invariants.wire import WireModel


class ContextUsage(WireModel):
    """How full the context window is."""

    estimated_input_tokens: int
    context_window_tokens: int
    reserved_output_tokens: int


class ContextSource(WireModel):
    """One piece of the assembled context (the snapshot, or one raw-tail event)."""

    id: str
    kind: str
    label: str
    content: str
    priority: int
