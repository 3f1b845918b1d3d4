"""maybe_compact: the snapshot engine's one entry point into a running agent loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from pydantic import ValidationError

from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    CompactionState,
    ContextUsage,
    SourceEventRange,
)
from compactcheck.reference_engine.shared_semantics import (
    CompactedContext,
    CompactionError,
    Compactor,
    SnapshotDesign,
    assembled_chars,
    checksum_matches,
    compactor_input,
    context_chars,
    is_safe_boundary,
    project,
    seal,
    tail_orphans,
)
from compactcheck.reference_engine.snapshot.history import check_history
from compactcheck.reference_engine.snapshot.rules import RuleFailure, validate
from compactcheck.reference_engine.snapshot.threshold import should_compact

OutcomeKind = Literal["below_threshold", "unsafe_boundary", "compacted", "rejected"]
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class EngineConfig:
    """How the engine behaves; the defaults are the corrected design."""

    mode: SnapshotDesign = SnapshotDesign.CORRECTED
    raw_tail_size: int = 8
    # Corrected mode: the longest raw tail an old anchor may pull in (default 2 * raw_tail_size).
    max_raw_tail: int | None = None
    clock: Clock = _utc_now


@dataclass(frozen=True)
class CompactionOutcome:
    """What one call of maybe_compact did.

    ``state`` is the state to carry on with: the very object passed in unless the outcome is
    ``compacted``. ``emitted`` holds the events the engine appended to the log, in order.
    """

    kind: OutcomeKind
    state: AgentState
    emitted: tuple[AgentEvent, ...] = ()
    snapshot: CompactionSnapshot | None = None
    failures: tuple[RuleFailure, ...] = ()
    context: CompactedContext | None = None
    # Corrected-mode diagnostics, computed in both modes so the literal gaps are visible.
    size_before: int = 0
    size_after: int = 0
    orphaned_results: tuple[str, ...] = field(default=())

    @property
    def made_progress(self) -> bool:
        """Whether the assembled context got smaller."""
        return self.size_after < self.size_before

    @property
    def failed_rules(self) -> tuple[str, ...]:
        """The ids of the broken rules, each once, in rule order of first appearance."""
        return tuple(dict.fromkeys(failure.rule for failure in self.failures))


def _event(kind: str, sequence: int, payload: dict[str, object]) -> AgentEvent:
    return AgentEvent.from_json_data(
        {
            "eventId": f"compaction-{sequence}",
            "sequence": sequence,
            "type": kind,
            "payload": payload,
        }
    )


def maybe_compact(
    state: AgentState,
    events: Sequence[AgentEvent],
    usage: ContextUsage,
    compactor: Compactor,
    *,
    pending_tool_calls: int = 0,
    pending_outputs: int = 0,
    config: EngineConfig | None = None,
) -> CompactionOutcome:
    """Compact when the context is over the trigger and the run is at a safe boundary.

    A rejected snapshot leaves the state exactly as it was and is reported in the outcome, with
    every broken rule named. In literal mode the log then ends with a dangling
    ``compaction_started`` (the seed's behaviour); the corrected mode closes it with a
    ``compaction_failed`` event.
    """
    config = config or EngineConfig()
    if not should_compact(usage):
        return CompactionOutcome("below_threshold", state)
    if not is_safe_boundary(state.status, pending_tool_calls, pending_outputs):
        return CompactionOutcome("unsafe_boundary", state)
    check_history(events)
    corrected = config.mode is SnapshotDesign.CORRECTED
    through = events[-1].sequence if events else 0
    started = _event("compaction_started", through + 1, {"through": through})
    handed = compactor_input(state, events, config.mode)
    failures: list[RuleFailure] = []
    previous = handed.previous_snapshot
    if corrected and previous is not None and not checksum_matches(previous):
        failures.append(
            RuleFailure("checksum", f"previous snapshot {previous.id!r} was altered after sealing")
        )
    handed_before = handed.to_json_data()
    low = state.compaction.compacted_through_event + 1
    source_range = SourceEventRange.model_validate(
        {"from": low, "to": handed.events[-1].sequence if handed.events else low - 1}
    )
    try:
        draft = compactor.compact(handed)
    except ValidationError as error:
        raise CompactionError(f"the compactor returned an invalid draft: {error}") from error
    if corrected and handed.to_json_data() != handed_before:
        raise CompactionError("the compactor mutated the input it was handed")
    snapshot = seal(draft, source_range, config.clock())
    failures.extend(validate(snapshot, state, events, verify_checksum=corrected))
    context = project(snapshot, events, config.raw_tail_size, config.mode, config.max_raw_tail)
    size_before = context_chars(
        state, events, config.raw_tail_size, config.mode, config.max_raw_tail
    )
    size_after = assembled_chars(context)
    orphans = tuple(tail_orphans(context.raw_tail))
    if corrected and not failures and size_after >= size_before:
        failures.append(
            RuleFailure(
                "progress",
                f"no progress: the context would grow from {size_before} to {size_after} chars",
            )
        )
    if failures:
        emitted: tuple[AgentEvent, ...] = (started,)
        if corrected:
            reason = "; ".join(str(failure) for failure in failures)
            emitted += (
                _event(
                    "compaction_failed",
                    through + 2,
                    {"reason": reason, "rules": [failure.rule for failure in failures]},
                ),
            )
        return CompactionOutcome(
            "rejected",
            state,
            emitted,
            snapshot,
            tuple(failures),
            context,
            size_before,
            size_after,
            orphans,
        )
    new_state = state.model_copy(
        update={
            "compaction": CompactionState(
                snapshots=(*state.compaction.snapshots, snapshot),
                compacted_through_event=snapshot.source_event_range.to,
                provider_items=state.compaction.provider_items,
            )
        }
    )
    completed = _event(
        "compaction_completed",
        through + 2,
        {"snapshotId": snapshot.id, "sourceEventRange": snapshot.source_event_range.to_json_data()},
    )
    return CompactionOutcome(
        "compacted",
        new_state,
        (started, completed),
        snapshot,
        (),
        context,
        size_before,
        size_after,
        orphans,
    )
