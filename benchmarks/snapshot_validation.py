"""Snapshot validation speed: our linear rules beside a direct port of the seed's lookups.

Run: .venv/bin/python benchmarks/snapshot_validation.py
The seed scans every event for every evidence id (quadratic); ours builds one dictionary.
Figures are measured side by side in one run; compare the ratios, not the absolute times.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    CompactionSnapshot,
    Decision,
    SnapshotDraft,
    SourceEventRange,
)
from compactcheck.reference_engine.snapshot import seal, validate


def history(size: int) -> list[AgentEvent]:
    """`size` small events with ids e1..eN."""
    return [
        AgentEvent.model_construct(
            event_id=f"e{n}", sequence=n, type="assistant_output", payload={"text": "x"}
        )
        for n in range(1, size + 1)
    ]


STATE = AgentState.from_json_data(
    {"runId": "r", "task": "t", "plan": {"steps": [], "acceptanceCriteria": []}}
)


def cited_snapshot(size: int, cited: tuple[str, ...]) -> CompactionSnapshot:
    """A sealed snapshot of events 1..size with one decision citing ``cited``."""
    draft = SnapshotDraft(goal="t", decisions=(Decision(statement="d", evidence_event_ids=cited),))
    source = SourceEventRange.model_validate({"from": 1, "to": size})
    return seal(draft, source, datetime(2026, 1, 1, tzinfo=UTC))


def time_validation(snapshot: CompactionSnapshot, events: list[AgentEvent]) -> float:
    """Seconds our validation takes (every rule, checksum included); it must find nothing."""
    start = time.perf_counter()
    assert validate(snapshot, STATE, events, verify_checksum=True) == []
    return time.perf_counter() - start


def seed_evidence_check(snapshot: CompactionSnapshot, events: list[AgentEvent]) -> None:
    """The seed's rule 11, ported as written: one scan of the events per evidence id."""
    low, high = snapshot.source_event_range.from_, snapshot.source_event_range.to
    for decision in snapshot.decisions:
        for event_id in decision.evidence_event_ids:
            if not any(
                event.event_id == event_id and low <= event.sequence <= high for event in events
            ):
                raise ValueError(f"unknown evidence event: {event_id}")


def main() -> None:
    print(f"{'events':>8} {'evidence':>8} {'ours s':>9} {'seed s':>9} {'speed-up':>9}")
    for size in (10_000, 100_000):
        events = history(size)
        # One decision citing every 100th event, spread over the whole range.
        cited = tuple(f"e{n}" for n in range(1, size + 1, 100))
        snapshot = cited_snapshot(size, cited)
        ours = time_validation(snapshot, events)
        start = time.perf_counter()
        seed_evidence_check(snapshot, events)
        seed = time.perf_counter() - start
        print(f"{size:>8} {len(cited):>8} {ours:>9.4f} {seed:>9.4f} {seed / ours:>8.1f}x")


if __name__ == "__main__":
    main()
