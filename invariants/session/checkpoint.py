"""The rules a compaction's shadowing events keep: the checkpoint of a bracket and a prune.

A checkpoint must follow its summary, replace exactly what the summary says it shadows, cite it,
cost less than it and cut where no tool call is open (G-a, G-c to G-j); a compaction/prune must be
followed by the one tool/result rewrite it announces, at the price it claims (G-i). The streaming
checker (``checker.py``) asks these rules at the events they are about.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from compactcheck.invariants.session.bracket import OpenBracket
from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.errors import LogViolationError
from compactcheck.invariants.session.pairing import event_delta
from compactcheck.invariants.session.pricing import node_price
from compactcheck.invariants.session.surface import SurfaceChange, parse_surface_op


def check_prune_follow_up(
    prune: SessionEvent, event: SessionEvent, event_at: Callable[[int], SessionEvent | None]
) -> None:
    """G-i: the event after a compaction/prune is its single-node tool/result rewrite."""
    data = prune.data if isinstance(prune.data, dict) else {}
    shadow = data.get("shadowedRange") or {}
    target = shadow.get("start")
    expected_op = {"op": "replace", "start": target, "end": target}
    if (
        event.type != "tool/result"
        or event.surface_op != expected_op
        or shadow.get("end") != target
        or data.get("shadowedSeqs") != [target]
    ):
        raise LogViolationError(
            "G-i",
            event.seq,
            f"compaction/prune at seq {prune.seq} must be followed by a tool/result replacing "
            f"exactly seq {target}; found {event.type} with surfaceOp {event.surface_op!r}",
        )
    original = event_at(target) if type(target) is int else None
    price = node_price(original) if original else None
    if data.get("shadowedTokenCount") != price:
        raise LogViolationError(
            "G-i",
            event.seq,
            f"compaction/prune at seq {prune.seq} claims {data.get('shadowedTokenCount')} "
            f"tokens; the rewritten result is priced {price}",
        )


def check_checkpoint(
    event: SessionEvent,
    change: SurfaceChange,
    bracket: OpenBracket,
    event_at: Callable[[int], SessionEvent | None],
    nodes: Sequence[int],
) -> None:
    """G-a and G-c to G-j: a checkpoint in an open bracket, against its summary and its span.

    ``nodes`` are the surface's nodes before the checkpoint replaces its span.
    """
    seq = event.seq
    if not bracket.summarized or bracket.summary_seq is None:
        raise LogViolationError(
            "G-a", seq, "checkpoint written before compaction/summary; summarise first"
        )
    if bracket.checkpoint_seq is not None:
        raise LogViolationError(
            "G-a",
            seq,
            f"second checkpoint in one bracket (first at seq {bracket.checkpoint_seq})",
        )
    summary_event = event_at(bracket.summary_seq)
    assert summary_event is not None
    summary: dict[str, Any] = summary_event.data
    shadow_range = summary.get("shadowedRange", {})
    op = parse_surface_op(event)
    if (
        bracket.summary_seq != seq - 1
        or op == "append"
        or ({"start": op.start, "end": op.end} != shadow_range)
    ):
        raise LogViolationError(
            "G-c",
            seq,
            f"checkpoint must immediately follow compaction/summary (seq "
            f"{bracket.summary_seq}) and replace its shadowedRange {shadow_range!r}; "
            f"found previous seq {seq - 1} and surfaceOp {event.surface_op!r}",
        )
    shadowed = list(change.shadowed)
    if summary.get("shadowedSeqs") != shadowed:
        raise LogViolationError(
            "G-d",
            seq,
            f"summary.shadowedSeqs {summary.get('shadowedSeqs')} differ from the nodes the "
            f"checkpoint shadows {shadowed}",
        )
    prices = 0
    span_delta = 0
    for node in shadowed:
        node_event = event_at(node)
        assert node_event is not None
        prices += node_price(node_event)
        span_delta += event_delta(node_event)
    if summary.get("shadowedTokenCount") != prices:
        raise LogViolationError(
            "G-e",
            seq,
            f"shadowedTokenCount {summary.get('shadowedTokenCount')} differs from the "
            f"price of the shadowed nodes, {prices}",
        )
    expected_sources = [bracket.start_seq, bracket.summary_seq, *shadowed]
    if event.source_event_seqs != expected_sources:
        raise LogViolationError(
            "G-f",
            seq,
            f"checkpoint sourceEventSeqs must be {expected_sources}; found "
            f"{event.source_event_seqs}",
        )
    own_price = node_price(event)
    if own_price >= prices:
        raise LogViolationError(
            "G-g",
            seq,
            f"checkpoint priced {own_price} is not smaller than the {prices} it shadows",
        )
    before = _open_before(nodes[: change.start_index], event_at)
    if before != 0 or span_delta != 0:
        raise LogViolationError(
            "G-h",
            seq,
            f"shadowed span is not balanced: {before} call(s) open before it, "
            f"{before + span_delta} after it; cut where no tool call is open",
        )
    if bracket.turn is not None and change.start_index != 0:
        raise LogViolationError(
            "G-j",
            seq,
            f"automatic checkpoint replaces from surface index {change.start_index}; "
            "automatic compaction is head-anchored",
        )


def _open_before(nodes: Sequence[int], event_at: Callable[[int], SessionEvent | None]) -> int:
    """The tool calls left open by ``nodes``, a head of the surface."""
    total = 0
    for node in nodes:
        node_event = event_at(node)
        assert node_event is not None
        total += event_delta(node_event)
    return total
