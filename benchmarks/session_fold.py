"""Benchmark: fold a 100k and a 1M event session log and answer pairing queries; linear growth."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from compactcheck.invariants.session import PairingFold, SessionEvent, SurfaceTracker
from compactcheck.reference_engine.session import fold_surface


def _user(seq: int) -> SessionEvent:
    data: dict[str, Any] = {
        "id": f"u{seq}",
        "role": "user",
        "content": [{"type": "text", "text": "hello"}],
        "source": {"kind": "user"},
    }
    return SessionEvent.trusted("user/message", seq, seq, data, surface_op="append")


def _assistant(seq: int, call: str) -> SessionEvent:
    data = {
        "turn": 1,
        "step": 1,
        "message": {
            "id": f"a{seq}",
            "role": "assistant",
            "content": [{"type": "tool-call", "id": call, "name": "run", "arguments": "{}"}],
            "source": {"kind": "model", "provider": "p", "model": "m"},
        },
    }
    return SessionEvent.trusted("assistant/message", seq, seq, data, surface_op="append")


def _result(seq: int, call: str) -> SessionEvent:
    data = {
        "turn": 1,
        "step": 1,
        "message": {
            "id": f"r{seq}",
            "role": "user",
            "source": {"kind": "tool", "callId": call},
            "content": [
                {"type": "tool-result", "toolCallId": call, "isError": False, "content": []}
            ],
        },
    }
    return SessionEvent.trusted("tool/result", seq, seq, data, surface_op="append")


def build_log(size: int) -> list[SessionEvent]:
    """A log of user messages, tool pairs, log-only markers and periodic head checkpoints."""
    events: list[SessionEvent] = []
    nodes: list[int] = []
    while len(events) < size:
        seq = len(events)
        phase = seq % 5
        if phase == 0:
            events.append(_user(seq))
            nodes.append(seq)
        elif phase == 1:
            events.append(_assistant(seq, f"c{seq}"))
            nodes.append(seq)
        elif phase == 2:
            events.append(_result(seq, f"c{seq - 1}"))
            nodes.append(seq)
        elif phase == 3:
            events.append(SessionEvent.trusted("step/end", seq, seq, {"turn": 1, "step": 1}))
        elif len(nodes) >= 60:
            # A head checkpoint over all but the newest 30 nodes keeps the surface bounded.
            shadowed = nodes[:-30]
            checkpoint = {
                "id": f"cp{seq}",
                "role": "user",
                "content": [{"type": "text", "text": "summary"}],
                "source": {"kind": "plugin", "plugin": "compact", "compactionId": f"k{seq}"},
            }
            events.append(
                SessionEvent.trusted(
                    "user/message",
                    seq,
                    seq,
                    checkpoint,
                    surface_op={"op": "replace", "start": shadowed[0], "end": shadowed[-1]},
                    source_event_seqs=list(shadowed),
                )
            )
            nodes = [seq, *nodes[-30:]]
        else:
            events.append(SessionEvent.trusted("request/context", seq, seq, {"provider": "p"}))
    return events


def _event_at(events: list[SessionEvent]) -> Callable[[int], SessionEvent | None]:
    return lambda seq: events[seq] if 0 <= seq < len(events) else None


def fold_with_queries(events: list[SessionEvent]) -> tuple[int, int, int]:
    """Fold the log live and ask balanced-after of every new surface node as it lands.

    The pairing fold is kept like the engine's cache: rebuilt on a new replace generation,
    extended when the surface only grew.
    """
    tracker = SurfaceTracker()
    event_at = _event_at(events)
    pairing = PairingFold()
    generation = 0
    queries = balanced = 0
    for event in events:
        change = tracker.check(event, event_at)
        tracker.apply(change)
        if change.kind == "none":
            continue
        if tracker.generation != generation:
            generation = tracker.generation
            pairing = PairingFold()
        pairing.extend(tracker.nodes[pairing.processed :], event_at)
        queries += 1
        balanced += pairing.balanced_after(event.seq)
    return queries, balanced, tracker.generation


def run(size: int, repeats: int = 1) -> float:
    """Fold a log of size events, answering one pairing query per surface event (best time)."""
    events = build_log(size)
    elapsed = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()  # the log is built up front; collector pauses would only add noise
        try:
            began = time.perf_counter()
            queries, balanced, generation = fold_with_queries(events)
            elapsed = min(elapsed, time.perf_counter() - began)
        finally:
            gc.enable()
    check = fold_surface(events)
    assert check.generation == generation
    print(
        f"{size:>9,} events: fold + {queries:,} pairing queries in {elapsed:.2f} s "
        f"({size / elapsed:,.0f} events/s, {queries / elapsed:,.0f} queries/s, "
        f"generation {generation}, {balanced:,} balanced)"
    )
    return elapsed


def main() -> None:
    """Run 100k and 1M and print the time ratio (10 means linear)."""
    small = run(100_000, repeats=3)
    large = run(1_000_000, repeats=2)
    print(f"time ratio 1M / 100k = {large / small:.2f} (linear growth is 10.0)")


if __name__ == "__main__":
    main()
