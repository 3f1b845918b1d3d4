"""The compaction transaction: start, summarise, check stability and shrink, commit, end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from compactcheck.invariants.session import PairingError, checkpoint_source, derive_event_message
from compactcheck.reference_engine.session.errors import (
    ManualCompactionError,
    NoOpenTurnError,
    SummaryError,
    SurfaceChangedError,
    render_error_chain,
)
from compactcheck.reference_engine.session.lock import assert_compaction_inactive
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.meter import Measurement, PricedNode, TokenMeter
from compactcheck.reference_engine.session.pairing import ToolPairing
from compactcheck.reference_engine.session.routing import latest_route
from compactcheck.reference_engine.session.selection import SurfaceRange
from compactcheck.reference_engine.session.signal import AbortSignal
from compactcheck.reference_engine.session.summariser import (
    SummarisationInput,
    Summariser,
    frame_summary,
    safe_summary,
)

Owner = Literal["current-turn"] | None
Stability = Literal["whole-surface", "selected-span"]
FailureStage = Literal["changed", "summary", "cancelled", "commit"]


@dataclass(frozen=True)
class CompactionResult:
    """A committed compaction: its markers' seqs and what the checkpoint replaced."""

    compaction_id: str
    source_command_id: str | None
    start_seq: int
    summary_seq: int
    end_seq: int
    summary: tuple[dict[str, Any], ...]
    shadowed_range: SurfaceRange
    shadowed_seqs: tuple[int, ...]
    shadowed_token_count: int

    @property
    def checkpoint_seq(self) -> int:
        """The checkpoint comes right after the summary."""
        return self.summary_seq + 1


@dataclass(frozen=True)
class TransactionOutcome:
    """How a transaction ended: a result, or a classified failure and whether it was closed."""

    result: CompactionResult | None
    failure: BaseException | None = None
    stage: FailureStage | None = None
    closed: bool = True
    start_seq: int | None = None


class IdMinter:
    """Deterministic compaction ids: a prefix and a counter."""

    def __init__(self, prefix: str = "compaction") -> None:
        self.prefix = prefix
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"{self.prefix}-{self.count}"


@dataclass
class TransactionParts:
    """The collaborators a transaction needs."""

    meter: TokenMeter
    pairing: ToolPairing
    summariser: Summariser
    new_id: Callable[[], str]


def _span_prices(measurement: Measurement, first: int, last: int) -> tuple[PricedNode, ...]:
    return measurement.nodes[first : last + 1]


def _span_positions(session: Session, span: SurfaceRange) -> tuple[int, int] | None:
    first, last = session.surface_position(span.start), session.surface_position(span.end)
    if first is None or last is None or first > last:
        return None
    return first, last


def run_transaction(
    session: Session,
    span: SurfaceRange,
    parts: TransactionParts,
    *,
    owner: Owner,
    stability: Stability,
    stage: str,
    source_command_id: str | None = None,
    signal: AbortSignal | None = None,
    check_abort: bool = False,
) -> TransactionOutcome:
    """Run one compaction of span; failures after start are closed with an error end."""
    state = assert_compaction_inactive(session, stage)
    if owner == "current-turn":
        if state.open_turn is None:
            raise NoOpenTurnError(
                f"{stage}: no open turn — automatic compaction events must be enclosed in a turn"
            )
        turn: int | None = state.open_turn
    else:
        if state.open_turn is not None:
            raise ManualCompactionError(
                "busy",
                f"{stage}: session {session.id} already has an open turn ({state.open_turn}); "
                "compact manually between turns",
            )
        turn = None
    if check_abort and signal is not None:
        signal.throw_if_aborted()
    compaction_id = parts.new_id()
    ids: dict[str, Any] = {"compactionId": compaction_id}
    if source_command_id is not None:
        ids["sourceCommandId"] = source_command_id
    start = session.append("compaction/start", {**ids, "turn": turn})

    def close(failure: BaseException, failed_stage: FailureStage) -> TransactionOutcome:
        try:
            session.append(
                "compaction/end", {**ids, "turn": turn, "error": render_error_chain(failure)}
            )
        except Exception as close_error:
            close_error.__cause__ = close_error.__cause__ or failure
            return TransactionOutcome(None, close_error, "commit", False, start.seq)
        return TransactionOutcome(None, failure, failed_stage, True, start.seq)

    failed_stage: FailureStage = "summary"
    try:
        failed_stage = "changed"
        measurement = parts.meter.measure(session)
        positions = _span_positions(session, span)
        if positions is None:
            raise SurfaceChangedError("selected surface changed before summarization began")
        first, last = positions
        shadowed = session.surface_slice(first, last + 1)
        priced = _span_prices(measurement, first, last)
        if tuple(node.seq for node in priced) != shadowed:
            raise SurfaceChangedError("selected surface changed before summarization began")
        token_count = sum(node.tokens for node in priced)
        route = latest_route(session)
        request = SummarisationInput(
            messages=tuple(
                message for seq in shadowed if (message := _message(session, seq)) is not None
            ),
            system=route.system if route else None,
            tools=route.tools if route else None,
            conversation_target=route.target if route else None,
        )
        failed_stage = "summary"
        draft = parts.summariser.summarise(request, signal)
        summary = safe_summary(draft.summary)
        if check_abort and signal is not None and signal.aborted:
            failed_stage = "cancelled"
            signal.throw_if_aborted()
        failed_stage = "changed"
        _check_stability(session, span, shadowed, priced, measurement, parts, stability)
        failed_stage = "summary"
        framed = frame_summary(summary)
        checkpoint_message = {
            "id": f"checkpoint-{compaction_id}",
            "role": "user",
            "content": framed,
            "source": checkpoint_source(compaction_id, source_command_id),
        }
        framed_price = parts.meter.estimate_message(checkpoint_message)
        if framed_price >= token_count:
            raise SummaryError(
                f"summary is not smaller than the shadowed content ({framed_price} estimated "
                f"framed tokens >= {token_count})",
                "NO_SHRINK",
            )
    except Exception as failure:
        return close(failure, failed_stage)
    summary_data: dict[str, Any] = {
        **ids,
        "summary": list(summary),
        "shadowedRange": {"start": shadowed[0], "end": shadowed[-1]},
        "shadowedSeqs": list(shadowed),
        "shadowedTokenCount": token_count,
        "provider": draft.provider,
        "model": draft.model,
    }
    if draft.max_tokens is not None:
        summary_data["maxTokens"] = draft.max_tokens
    if draft.usage is not None:
        summary_data["usage"] = dict(draft.usage)
    if draft.raw_output is not None:
        summary_data["rawOutput"] = list(draft.raw_output)
    if draft.llm_stream_call:
        summary_data["llmStreamCall"] = True
    try:
        summary_event = session.append("compaction/summary", summary_data)
        session.append(
            "user/message",
            checkpoint_message,
            surface_op={"op": "replace", "start": shadowed[0], "end": shadowed[-1]},
            source_event_seqs=[start.seq, summary_event.seq, *shadowed],
        )
    except Exception as failure:
        return close(failure, "commit")
    try:
        end = session.append("compaction/end", {**ids, "turn": turn})
    except Exception as failure:
        # The orphaned start is kept on purpose: it keeps signalling busy.
        return TransactionOutcome(None, failure, "commit", False, start.seq)
    return TransactionOutcome(
        CompactionResult(
            compaction_id=compaction_id,
            source_command_id=source_command_id,
            start_seq=start.seq,
            summary_seq=summary_event.seq,
            end_seq=end.seq,
            summary=tuple(summary),
            shadowed_range=SurfaceRange(shadowed[0], shadowed[-1]),
            shadowed_seqs=shadowed,
            shadowed_token_count=token_count,
        ),
        start_seq=start.seq,
    )


def _message(session: Session, seq: int) -> Any:
    event = session.event_at(seq)
    return derive_event_message(event) if event is not None else None


def _check_stability(
    session: Session,
    span: SurfaceRange,
    shadowed: tuple[int, ...],
    priced: tuple[PricedNode, ...],
    measurement: Measurement,
    parts: TransactionParts,
    stability: Stability,
) -> None:
    current = parts.meter.measure(session)
    if stability == "whole-surface":
        if current.nodes != measurement.nodes:
            raise SurfaceChangedError("session surface changed during summarization")
        return
    positions = _span_positions(session, span)
    try:
        balanced = positions is not None and (
            parts.pairing.balanced_before(session, span.start)
            and parts.pairing.balanced_after(session, span.end)
        )
    except PairingError as error:
        raise SurfaceChangedError(
            "the selected span is no longer a valid replacement target; select again"
        ) from error
    if positions is None or not balanced:
        raise SurfaceChangedError(
            "the selected span is no longer a valid replacement target; select again"
        )
    first, last = positions
    if session.surface_slice(first, last + 1) != shadowed:
        raise SurfaceChangedError("the selected span changed during summarization")
    if current.nodes[first : last + 1] != priced:
        raise SurfaceChangedError("the selected span was rewritten during summarization")
