"""compaction-basic: region compaction, pressure and overflow paths over one set of parts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from compactcheck.reference_engine.session.config import (
    CompactionConfig,
    TargetPolicy,
    resolve_compact_spec,
    resolve_target_policy,
)
from compactcheck.reference_engine.session.errors import (
    PressureNotRelievedError,
    RegionError,
    TargetPressureConfigError,
)
from compactcheck.reference_engine.session.lock import assert_compaction_inactive
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.meter import TokenMeter
from compactcheck.reference_engine.session.pairing import ToolPairing
from compactcheck.reference_engine.session.pruner import PrunerConfig, prune_session
from compactcheck.reference_engine.session.routing import latest_route
from compactcheck.reference_engine.session.selection import SurfaceRange, select_compactable_range
from compactcheck.reference_engine.session.signal import AbortSignal
from compactcheck.reference_engine.session.summariser import Summariser, TextSummariser
from compactcheck.reference_engine.session.transaction import (
    CompactionResult,
    IdMinter,
    TransactionParts,
    run_transaction,
)

# Why automatic compaction runs: context pressure before a step, or a context overflow error.
AutomaticTrigger = Literal["pressure", "context-overflow"]
# (provider, model, signal) -> the context window, or None when unknown.
CapacityLookup = Callable[[str, str, AbortSignal | None], int | None]


def _no_capacity(provider: str, model: str, signal: AbortSignal | None) -> int | None:
    return None


@dataclass
class BasicCompactor:
    """The reference session compactor: deterministic, every collaborator injectable."""

    config: CompactionConfig = field(default_factory=CompactionConfig)
    summariser: Summariser = field(default_factory=TextSummariser)
    meter: TokenMeter = field(default_factory=TokenMeter)
    pairing: ToolPairing = field(default_factory=ToolPairing)
    capacity: CapacityLookup = _no_capacity
    pruner: PrunerConfig | None = None
    new_id: Callable[[], str] = field(default_factory=IdMinter)

    @property
    def parts(self) -> TransactionParts:
        """The collaborators a transaction uses."""
        return TransactionParts(self.meter, self.pairing, self.summariser, self.new_id)

    def validate_region(self, session: Session, start: int, end: int) -> None:
        """Read-only checks of an explicit range, in the spec's order (steps 1-5)."""
        first = session.surface_position(start)
        if first is None:
            raise RegionError(f"start seq {start} not found in surface; pick a visible node")
        last = session.surface_position(end)
        if last is None:
            raise RegionError(f"end seq {end} not found in surface; pick a visible node")
        if first > last:
            raise RegionError(
                f"start seq {start} (index {first}) is after end seq {end} (index {last}) on "
                "the surface; ranges are positions, list the earlier node first"
            )
        if not self.pairing.balanced_before(session, start):
            raise RegionError(
                f"start seq {start} is not a balanced boundary: a tool call is open before it; "
                "move the start to a cut with no open call"
            )
        if not self.pairing.balanced_after(session, end):
            raise RegionError(
                f"end seq {end} is not a balanced boundary: a tool call is open after it; "
                "extend the end past the last result"
            )

    def compact_region(
        self, session: Session, start: int, end: int, signal: AbortSignal | None = None
    ) -> CompactionResult:
        """Compact an explicit surface range inside the open turn; re-raise any failure."""
        self.validate_region(session, start, end)
        outcome = run_transaction(
            session,
            SurfaceRange(start, end),
            self.parts,
            owner="current-turn",
            stability="whole-surface",
            stage="compactRegion",
            signal=signal,
        )
        if outcome.failure is not None:
            raise outcome.failure
        assert outcome.result is not None
        return outcome.result

    def policy_for(self, provider: str, model: str) -> TargetPolicy:
        """The merged policy for a conversation target."""
        return resolve_target_policy(self.config, provider, model)

    def compact_if_needed(
        self, session: Session, trigger: AutomaticTrigger, signal: AbortSignal | None = None
    ) -> CompactionResult | None:
        """Automatic compaction under pressure or after a context overflow."""
        route = latest_route(session)
        if route is None:
            return None
        if trigger == "context-overflow":
            return self._overflow(session, signal)
        policy = self.policy_for(route.provider, route.model)
        measurement = self.meter.measure(session)
        window = self.capacity(route.provider, route.model, signal)
        assert_compaction_inactive(session, "compactIfNeeded")
        if window is None:
            raise TargetPressureConfigError(
                f"no context capacity for {route.provider}/{route.model}; give the adapter a "
                "context window for this model"
            )
        spec = resolve_compact_spec(policy, window)
        if measurement.total_tokens < spec.threshold_tokens:
            return None
        if self.pruner is not None:
            prune_session(session, self.pruner)
            measurement = self.meter.measure(session)
            if measurement.total_tokens < spec.threshold_tokens:
                return None
        result: CompactionResult | None = None
        attempts = policy.compaction_retries + 1
        for _attempt in range(attempts):
            span = select_compactable_range(session, measurement, spec.retain_tokens, self.pairing)
            if span is None:
                if result is None:
                    return None
                break
            result = self.compact_region(session, span.start, span.end, signal)
            measurement = self.meter.measure(session)
            if measurement.total_tokens < spec.threshold_tokens:
                return result
        raise PressureNotRelievedError(
            f"compaction still above threshold after {attempts} compaction attempts "
            f"({measurement.total_tokens} estimated tokens >= threshold "
            f"{spec.threshold_tokens}); raise compactionRetries or lower retention"
        )

    def _overflow(self, session: Session, signal: AbortSignal | None) -> CompactionResult | None:
        if self.pruner is not None:
            prune_session(session, self.pruner)
        measurement = self.meter.measure(session)
        span = select_compactable_range(session, measurement, 0, self.pairing)
        if span is None:
            return None
        return self.compact_region(session, span.start, span.end, signal)
