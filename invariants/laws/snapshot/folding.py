"""The snapshot laws on how a snapshot folds the log: range, evidence, seal, tail, inputs, size."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.canonical import canonically_equal, sha256_hex
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.invariants.events import AgentEvent
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness


@invariant(
    "snapshot",
    "evidence_in_range",
    "every decision cites only events inside the snapshot's source range",
)
def evidence_in_range(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """No evidence from outside the folded range, and none invented."""
    del facts
    # The log by event id, made only when a decision cites evidence (most rounds cite none).
    by_id: dict[str, AgentEvent] = {}
    if any(decision.evidence_event_ids for decision in after.snapshot.decisions):
        by_id = {event.event_id: event for event in before.events}
    low, high = after.snapshot.source_event_range.from_, after.snapshot.source_event_range.to
    found: list[Violation] = []
    cited = 0
    for index, decision in enumerate(after.snapshot.decisions):
        for event_id in decision.evidence_event_ids:
            cited += 1
            event = by_id.get(event_id)
            if event is None:
                found.append(
                    Violation(
                        "evidence_in_range",
                        f"decision {index} cites event {event_id!r}, which is not in the log",
                        (decision.to_json_data(),),
                    )
                )
            elif not low <= event.sequence <= high:
                found.append(
                    Violation(
                        "evidence_in_range",
                        f"decision {index} cites event {event_id!r} (sequence {event.sequence}), "
                        f"outside the source range {low}..{high}",
                        (decision.to_json_data(), event.to_json_data()),
                    )
                )
    return Finding("evidence_in_range", cited > 0, tuple(found))


@invariant(
    "snapshot",
    "source_range_valid",
    "the source range starts after the last folded event, ends at the last event, is not empty",
)
def source_range_valid(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The snapshot folds exactly the new events."""
    del facts
    source = after.snapshot.source_event_range
    low = before.state.compaction.compacted_through_event + 1
    high = before.events[-1].sequence if before.events else low - 1
    found: list[Violation] = []
    if (source.from_, source.to) != (low, high):
        found.append(
            Violation(
                "source_range_valid",
                f"source range {source.from_}..{source.to} should be {low}..{high} "
                "(after the last folded event, through the last event)",
                (),
                value_diff({"from": low, "to": high}, source.to_json_data()),
            )
        )
    if source.to < source.from_:
        found.append(
            Violation(
                "source_range_valid", f"source range {source.from_}..{source.to} is empty", ()
            )
        )
    return Finding("source_range_valid", True, tuple(found))


@invariant(
    "snapshot",
    "checksum_valid",
    "the checksum is SHA-256 of the RFC 8785 JSON of the snapshot without its checksum",
)
def checksum_valid(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The snapshot has not been altered since it was sealed."""
    del before, facts
    data = after.snapshot.to_json_data()
    del data["checksum"]
    expected = sha256_hex(data)
    found: tuple[Violation, ...] = ()
    if expected != after.snapshot.checksum:
        found = (
            Violation(
                "checksum_valid",
                f"snapshot {after.snapshot.id!r} has checksum {after.snapshot.checksum[:12]}..., "
                f"its content hashes to {expected[:12]}...",
                (),
            ),
        )
    return Finding("checksum_valid", True, found)


@invariant(
    "snapshot",
    "raw_tail_preserved",
    "the raw tail is a verbatim suffix of the log that holds every event after the range",
)
def raw_tail_preserved(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Recent events are kept as they were, in order, with nothing skipped."""
    del facts
    events, tail = before.events, after.raw_tail
    found: list[Violation] = []
    offset = len(events) - len(tail)
    if offset < 0:
        found.append(
            Violation(
                "raw_tail_preserved",
                f"the raw tail holds {len(tail)} events, more than the log's {len(events)}",
                (),
            )
        )
    else:
        for index, event in enumerate(tail):
            original = events[offset + index]
            if event != original:
                found.append(
                    Violation(
                        "raw_tail_preserved",
                        f"raw tail position {index} holds event {event.event_id!r}; the log has "
                        f"{original.event_id!r} there (the tail must be a verbatim suffix)",
                        (original.to_json_data(), event.to_json_data()),
                        value_diff(original.to_json_data(), event.to_json_data()),
                    )
                )
                break
    newer = [e for e in events if e.sequence > after.snapshot.source_event_range.to]
    if newer and (not tail or tail[0].sequence > newer[0].sequence):
        found.append(
            Violation(
                "raw_tail_preserved",
                f"event {newer[0].event_id!r} came after the folded range but is not in the tail",
                witness(newer[0]),
            )
        )
    return Finding("raw_tail_preserved", bool(tail) or bool(newer), tuple(found))


@invariant(
    "snapshot",
    "tool_pairing",
    "no tool result in the raw tail whose call was folded into the snapshot",
)
def tool_pairing(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """The tail never starts between a tool call and its result."""
    del facts
    in_tail = {e.text("callId") for e in after.raw_tail if e.type == "tool_call"}
    orphans = [
        event
        for event in after.raw_tail
        if event.type == "tool_result" and event.text("callId") not in in_tail
    ]
    if not orphans:
        exercised = bool(after.raw_tail) and any(e.type == "tool_call" for e in before.events)
        return Finding("tool_pairing", exercised, ())
    calls = {e.text("callId"): e for e in before.events if e.type == "tool_call"}
    found = tuple(
        Violation(
            "tool_pairing",
            f"tool result {event.event_id!r} for call {event.text('callId')!r} is in the raw "
            "tail, but its call "
            + (
                f"{calls[event.text('callId')].event_id!r} was folded into the snapshot"
                if event.text("callId") in calls
                else "is nowhere in the log"
            ),
            witness(calls.get(event.text("callId")), event),
        )
        for event in orphans
    )
    exercised = bool(after.raw_tail) and bool(calls)
    return Finding("tool_pairing", exercised, found)


def _data_changes(law: str, what: str, old: dict[str, Any], new: dict[str, Any]) -> list[Violation]:
    if canonically_equal(old, new):
        return []
    return [
        Violation(law, f"the backend changed the {what} it was handed", (), value_diff(old, new))
    ]


@invariant(
    "snapshot",
    "state_untouched",
    "the backend did not mutate the input or the authoritative state it was handed",
)
def state_untouched(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Compaction never rewrites authoritative state."""
    del facts
    found = _data_changes("state_untouched", "compactor input", before.handed, after.handed)
    found += _data_changes("state_untouched", "agent state", before.state_data, after.state_data)
    return Finding("state_untouched", True, tuple(found))


@invariant(
    "snapshot",
    "progress",
    "the assembled context after compaction is smaller than before, so compaction cannot loop",
)
def progress(before: SnapshotBefore, after: SnapshotAfter, facts: Facts) -> Finding:
    """Compaction shrinks the context."""
    del facts
    found: tuple[Violation, ...] = ()
    if after.context_chars >= before.context_chars:
        first = after.raw_tail[0].event_id if after.raw_tail else None
        found = (
            Violation(
                "progress",
                f"the context grows from {before.context_chars} to {after.context_chars} "
                f"characters (the raw tail starts at {first!r} and holds {len(after.raw_tail)} "
                f"of {len(before.events)} events)",
                (),
            ),
        )
    return Finding("progress", True, found)
