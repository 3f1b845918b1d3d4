"""The token meter: heuristic node prices, request pressure and the shadow-price projection."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

from compactcheck.invariants.session import (
    LogViolationError,
    SessionEvent,
    estimate_envelope,
    estimate_message,
    node_price,
)
from compactcheck.reference_engine.session.log import Session


@dataclass(frozen=True)
class PricedNode:
    """One surface node and its heuristic price."""

    seq: int
    tokens: int


@dataclass(frozen=True)
class Measurement:
    """A frozen reading of a session's request pressure and per-node prices."""

    log_revision: int
    baseline: int
    surface_delta_tokens: int
    total_tokens: int
    surface_tokens: int
    nodes: tuple[PricedNode, ...]

    def seqs(self) -> tuple[int, ...]:
        """The priced seqs in surface order."""
        return tuple(node.seq for node in self.nodes)


@dataclass
class _Anchor:
    seq: int
    surface_tokens: int
    usage_tokens: int
    header: Any


@dataclass
class _Projection:
    processed: int = 0
    surface_tokens: int = 0
    claim: tuple[int, int, int] | None = None
    prices: dict[int, int] = field(default_factory=dict)
    # The priced entry last built for each surface node, reused while its price is the same.
    priced: dict[int, PricedNode] = field(default_factory=dict)
    header: Any = None
    anchor: _Anchor | None = None


def header_envelope_price(header: Any) -> int:
    """The price of a request/header's system prompt and tools."""
    if not isinstance(header, dict):
        return 0
    envelope = header.get("header", {})
    system = envelope.get("system") if isinstance(envelope, dict) else None
    tools = envelope.get("tools") if isinstance(envelope, dict) else None
    return estimate_envelope(
        system if isinstance(system, str) else None, tools if isinstance(tools, list) else None
    )


def _usage_total(usage: Any) -> int:
    if not isinstance(usage, dict):
        return 0
    keys = ("input", "cacheRead", "cacheWrite", "output")
    return sum(value for key in keys if type(value := usage.get(key, 0)) is int)


class TokenMeter:
    """Prices surfaces with the fixed heuristic; folds each session once, incrementally."""

    def __init__(self) -> None:
        self._folds: WeakKeyDictionary[Session, _Projection] = WeakKeyDictionary()
        self.measure_calls = 0

    def estimate_message(self, message: Any) -> int:
        """The heuristic price of one message (a typed model or raw JSON)."""
        if hasattr(message, "to_json_data"):
            message = message.to_json_data()
        return estimate_message(message)

    def _fold(self, session: Session) -> _Projection:
        state = self._folds.get(session)
        if state is None:
            state = _Projection(processed=session.base_seq)
            self._folds[session] = state
        while state.processed < session.seq:
            event = session.event_at(state.processed)
            assert event is not None
            self._step(state, event)
            state.processed += 1
        return state

    def _step(self, state: _Projection, event: SessionEvent) -> None:
        claim, state.claim = state.claim, None
        if event.type in ("compaction/summary", "compaction/prune"):
            shadow = event.data.get("shadowedRange", {})
            state.claim = (shadow["start"], shadow["end"], event.data["shadowedTokenCount"])
            return
        if event.type == "request/header":
            state.header = event.data
            return
        if event.surface_op is None:
            return
        price = node_price(event)
        state.prices[event.seq] = price
        if event.surface_op == "append":
            state.surface_tokens += price
        elif claim is not None:
            op = event.surface_op
            if (op["start"], op["end"]) != claim[:2]:
                raise LogViolationError(
                    "M2",
                    event.seq,
                    f"token surface: replace at seq {event.seq} has no adjacent shadow price "
                    f"(armed claim covers {claim[0]}..{claim[1]})",
                )
            state.surface_tokens += price - claim[2]
        # A replace without a claim is legacy drift: it counts as a delta of 0.
        if event.type == "assistant/message" and isinstance(event.data, dict):
            usage = event.data.get("usage")
            if usage is not None and not event.data.get("interrupted"):
                state.anchor = _Anchor(
                    event.seq, state.surface_tokens, _usage_total(usage), state.header
                )

    def projected_tokens(self, session: Session) -> int:
        """Surface tokens as the O(1) shadow-price projection sees them."""
        return self._fold(session).surface_tokens

    def price_of(self, session: Session, seq: int) -> int:
        """The heuristic price of one surface node."""
        state = self._fold(session)
        price = state.prices.get(seq)
        if price is None:
            event = session.event_at(seq)
            price = node_price(event) if event is not None else 0
        return price

    def _priced_node(self, state: _Projection, session: Session, seq: int) -> PricedNode:
        """A node priced through ``price_of`` (a seam), reusing the entry last built for it."""
        price = self.price_of(session, seq)
        node = state.priced.get(seq)
        if node is None or node.tokens != price:
            node = state.priced[seq] = PricedNode(seq, price)
        return node

    def measure(self, session: Session) -> Measurement:
        """A frozen reading: exact per-node prices and pressure anchored to provider usage."""
        self.measure_calls += 1
        state = self._fold(session)
        nodes = tuple(self._priced_node(state, session, seq) for seq in session.surface_nodes)
        surface_tokens = sum(node.tokens for node in nodes)
        anchor = state.anchor
        if anchor is not None and anchor.header == state.header:
            heuristic = header_envelope_price(anchor.header) + anchor.surface_tokens
            baseline = max(anchor.usage_tokens, heuristic)
            delta = surface_tokens - anchor.surface_tokens
        else:
            baseline = header_envelope_price(state.header)
            delta = surface_tokens
        return Measurement(
            log_revision=session.seq,
            baseline=baseline,
            surface_delta_tokens=delta,
            total_tokens=max(0, baseline + delta),
            surface_tokens=surface_tokens,
            nodes=nodes,
        )
