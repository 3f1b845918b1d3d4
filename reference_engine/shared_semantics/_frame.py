"""The seed's frame around any snapshot compactor, and one compaction as the laws see it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    CompactionState,
    CompactorInput,
    SnapshotDraft,
    SourceEventRange,
)
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.reference_engine.shared_semantics._design import SnapshotDesign
from compactcheck.reference_engine.shared_semantics._handover import compactor_input
from compactcheck.reference_engine.shared_semantics._sealing import seal
from compactcheck.reference_engine.shared_semantics._tail import (
    CompactedContext,
    assembled_chars,
    context_chars,
    project,
)

Sealer = Callable[[SnapshotDraft, SourceEventRange, datetime], CompactionSnapshot]
TailSelector = Callable[[CompactionSnapshot, Sequence[AgentEvent]], tuple[AgentEvent, ...]]
Clock = Callable[[], datetime]


class Compactor(Protocol):
    """Anything that turns a compactor input into a snapshot draft.

    A compactor behind JSON (another process, a plain callable) may also expose ``last_seen``:
    the data it was handed as it looked afterwards, so that in-place edits of it are caught too.
    """

    def compact(self, compactor_input: CompactorInput) -> SnapshotDraft:
        """Fold the input into a draft."""
        ...


def _fixed_clock() -> datetime:
    # Frames run under Hypothesis: a fixed clock keeps every example reproducible.
    return datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SnapshotFrame:
    """Input building, the compactor, sealing and tail selection, each replaceable.

    The default steps are the corrected design around the given compactor. Unlike the reference
    engine's ``maybe_compact`` it does not validate or reject: the laws judge what it produced.
    """

    compactor: Compactor
    # The design of the raw tail and of the context size; the input follows it unless
    # ``input_design`` says otherwise.
    design: SnapshotDesign = SnapshotDesign.CORRECTED
    input_design: SnapshotDesign | None = None
    raw_tail_size: int = 8
    max_raw_tail: int | None = None
    clock: Clock = _fixed_clock
    sealer: Sealer = seal
    tail: TailSelector | None = None
    # The corrected design declines a compaction that would not shrink the context; a mutant
    # may not.
    decline_without_progress: bool = True

    def select_tail(
        self, snapshot: CompactionSnapshot, events: Sequence[AgentEvent]
    ) -> tuple[AgentEvent, ...]:
        """The raw tail kept after the snapshot."""
        if self.tail is not None:
            return self.tail(snapshot, events)
        return project(
            snapshot, events, self.raw_tail_size, self.design, self.max_raw_tail
        ).raw_tail

    def compact(
        self, state: AgentState, events: Sequence[AgentEvent]
    ) -> tuple[SnapshotBefore, SnapshotAfter, AgentState] | None:
        """Run one compaction: what the laws need and the state to carry on with.

        None when the frame declines because the context would not shrink.
        """
        handed = compactor_input(state, events, self.input_design or self.design)
        before = SnapshotBefore(
            state=state,
            events=tuple(events),
            handed=handed.to_json_data(),
            state_data=state.to_json_data(),
            context_chars=context_chars(
                state, events, self.raw_tail_size, self.design, self.max_raw_tail
            ),
        )
        draft = self.compactor.compact(handed)
        low = state.compaction.compacted_through_event + 1
        high = events[-1].sequence if events else low - 1
        source = SourceEventRange.model_validate({"from": low, "to": high})
        snapshot = self.sealer(draft, source, self.clock())
        tail = self.select_tail(snapshot, events)
        seen = getattr(self.compactor, "last_seen", None)
        after = SnapshotAfter(
            snapshot=snapshot,
            raw_tail=tail,
            handed=seen if isinstance(seen, dict) else handed.to_json_data(),
            state_data=state.to_json_data(),
            context_chars=assembled_chars(CompactedContext(snapshot, tail)),
        )
        if self.decline_without_progress and after.context_chars >= before.context_chars:
            return None
        carried = state.model_copy(
            update={
                "compaction": CompactionState(
                    snapshots=(*state.compaction.snapshots, snapshot),
                    compacted_through_event=high,
                    provider_items=state.compaction.provider_items,
                )
            }
        )
        return before, after, carried
