"""Snapshot validation speed: our linear rules beside a direct port of the seed's lookups.

Run: benchmarks/run --only checker (or .venv/bin/python benchmarks/snapshot_validation.py)
The seed scans every event for every evidence id (quadratic); ours builds one dictionary.
Figures are measured side by side in one run; compare the ratios, not the absolute times.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from functools import partial

from benchmarks.messages_judgement import best_ms
from benchmarks.scaling import exponent_verdicts, shown, step_exponents, verdict
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


# The seed's evidence check is quadratic; beyond this many (ids x events) it is sampled.
_SEED_FULL_LIMIT = 2 * 10**8


def _walk(events: list[AgentEvent]) -> int:
    """The least a linear check does: read one field of every event, once."""
    return sum(event.sequence for event in events)


def checker(sizes: list[int]) -> None:
    """Snapshot validation events per second against the seed's quadratic evidence lookup."""
    print("\n## Checker: snapshot validation, events per second (one decision citing every 100th)")
    print(
        f"{'events':>9} {'ours s':>8} {'exponent':>8} {'walk s':>8} {'exponent':>8} "
        f"{'ours ev/s':>12} {'seed ev/s':>12} {'speed-up':>9}  note"
    )
    ours_times: list[float] = []
    walk_times: list[float] = []
    for size in sizes:
        events = history(size)
        cited = tuple(f"e{n}" for n in range(1, size + 1, 100))
        snapshot = cited_snapshot(size, cited)
        # Best of a few: the exponent compares sizes, and one slow round would skew it.
        ours = min(time_validation(snapshot, events) for _ in range(3))
        ours_times.append(ours)
        walk_times.append(best_ms(partial(_walk, events), repeat=3) / 1000)
        note = "full"
        sample = cited
        # Each id's scan is independent, so a spread sample times the whole check fairly.
        if len(cited) * size > _SEED_FULL_LIMIT:
            sample = cited[:: max(1, len(cited) // 20)]
            note = f"seed time extrapolated from {len(sample)} of {len(cited)} ids (quadratic)"
        sampled = snapshot.model_copy(
            update={"decisions": (Decision(statement="d", evidence_event_ids=sample),)}
        )
        start = time.perf_counter()
        seed_evidence_check(sampled, events)
        seed_time = (time.perf_counter() - start) * len(cited) / len(sample)
        print(
            f"{size:>9} {ours:>8.4f} {shown(step_exponents(sizes, ours_times)[-1]):>8} "
            f"{walk_times[-1]:>8.4f} {shown(step_exponents(sizes, walk_times)[-1]):>8} "
            f"{size / ours:>12.0f} {size / seed_time:>12.0f} {seed_time / ours:>8.1f}x  {note}"
        )
        del events
    if sizes[-1] == 1_000_000:
        print(
            f"target: 1,000,000 events validated in under 1 s: {ours_times[-1]:.3f} s, "
            f"{verdict(ours_times[-1] < 1.0)}"
        )
    exponents = [e for e in step_exponents(sizes, ours_times) if e is not None]
    if exponents:
        walked = [e for e in step_exponents(sizes, walk_times) if e is not None]
        print(exponent_verdicts("events", exponents, walked, "the bare walk"))
    print(
        "(ours s: best of 3; exponent: log(t / t of the row above) / log(10x); walk s: a bare "
        "read of every event's sequence, best of 3, linear work whose exponent is this "
        "machine's own (caches, memory) at these sizes)"
    )


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
