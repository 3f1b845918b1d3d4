"""The snapshot pipeline around any compactor, and one compaction as the checkers see it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    CompactionState,
    SnapshotDraft,
    SourceEventRange,
)
from invariants.compaction import SnapshotAfter, SnapshotBefore
from reference_engine.snapshot.compactor import Compactor, ReferenceCompactor
from reference_engine.snapshot.engine import EngineConfig, compactor_input, context_chars
from reference_engine.snapshot.mode import Mode
from reference_engine.snapshot.sealing import seal
from reference_engine.snapshot.tail import CompactedContext, assembled_chars, project

Sealer = Callable[[SnapshotDraft, SourceEventRange, datetime], CompactionSnapshot]
TailSelector = Callable[[CompactionSnapshot, Sequence[AgentEvent]], tuple[AgentEvent, ...]]


def _fixed_clock() -> datetime:
    # Pipelines run under Hypothesis: a fixed clock keeps every example reproducible.
    return datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SnapshotPipeline:
    """Input building, the compactor, sealing and tail selection, each replaceable.

    The default is the corrected reference design around the given compactor. Unlike
    ``maybe_compact`` it does not validate or reject: the checkers judge what it produced.
    """

    compactor: Compactor = field(default_factory=ReferenceCompactor)
    config: EngineConfig = field(default_factory=lambda: EngineConfig(clock=_fixed_clock))
    sealer: Sealer = seal
    tail: TailSelector | None = None
    input_mode: Mode | None = None
    # The reference declines a compaction that would not shrink the context; a mutant may not.
    decline_without_progress: bool = True

    def select_tail(
        self, snapshot: CompactionSnapshot, events: Sequence[AgentEvent]
    ) -> tuple[AgentEvent, ...]:
        """The raw tail kept after the snapshot."""
        if self.tail is not None:
            return self.tail(snapshot, events)
        config = self.config
        return project(
            snapshot, events, config.raw_tail_size, config.mode, config.max_raw_tail
        ).raw_tail

    def compact(
        self, state: AgentState, events: Sequence[AgentEvent]
    ) -> tuple[SnapshotBefore, SnapshotAfter, AgentState] | None:
        """Run one compaction: what the checkers need and the state to carry on with.

        None when the pipeline declines because the context would not shrink.
        """
        mode = self.input_mode or self.config.mode
        handed = compactor_input(state, events, mode)
        before = SnapshotBefore(
            state=state,
            events=tuple(events),
            handed=handed.to_json_data(),
            state_data=state.to_json_data(),
            context_chars=context_chars(state, events, self.config),
        )
        draft = self.compactor.compact(handed)
        low = state.compaction.compacted_through_event + 1
        high = events[-1].sequence if events else low - 1
        source = SourceEventRange.model_validate({"from": low, "to": high})
        snapshot = self.sealer(draft, source, self.config.clock())
        tail = self.select_tail(snapshot, events)
        # A compactor behind JSON (another process, a plain callable) reports the data it was
        # handed as it looked afterwards, so that in-place edits of that data are caught too.
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
