"""Spec 6.1: the seam contract: log-only markers, single-node ranges, checkpoint source, signal."""

from __future__ import annotations

from compactcheck.invariants.session import checkpoint_source, is_compact_checkpoint_source
from compactcheck.reference_engine.session import (
    AbortSignal,
    BasicCompactor,
    FunctionSummariser,
    SummarisationInput,
    SummaryDraft,
    TextSummariser,
)
from tests.reference_engine.session.session_script import Script


def test_markers_are_log_only_and_ordered() -> None:
    script = Script()
    script.conversation(2, width=800)
    script.begin_turn()
    session = script.session
    head = session.surface_nodes[0]
    result = BasicCompactor().compact_region(session, head, head)
    start = session.event_at(result.start_seq)
    assert start is not None
    assert start.surface_op is None
    assert result.start_seq < result.summary_seq < result.end_seq
    assert result.shadowed_seqs == (head,)
    assert (result.shadowed_range.start, result.shadowed_range.end) == (head, head)
    checkpoint = session.event_at(result.checkpoint_seq)
    assert checkpoint is not None
    assert checkpoint.data["source"] == checkpoint_source(result.compaction_id)
    family = [e.type for e in session.events if e.type.startswith("compaction/")]
    assert family == ["compaction/start", "compaction/summary", "compaction/end"]
    script.check()


def test_checkpoint_source_recognition() -> None:
    assert is_compact_checkpoint_source(checkpoint_source("k", "cmd"))
    assert not is_compact_checkpoint_source({"kind": "plugin", "plugin": "other"})
    assert not is_compact_checkpoint_source({"kind": "user"})


def test_the_same_signal_object_reaches_the_summariser() -> None:
    script = Script()
    script.conversation(2)
    script.begin_turn()
    script.header()
    seen: list[AbortSignal | None] = []

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        seen.append(signal)
        return TextSummariser().summarise(request, None)

    signal = AbortSignal()
    compactor = BasicCompactor(summariser=FunctionSummariser(run))
    compactor.compact_if_needed(script.session, "context-overflow", signal)
    assert seen == [signal]
