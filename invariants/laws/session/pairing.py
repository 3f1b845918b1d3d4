"""The session law on tool calls and results: a compacted span is balanced at both edges."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.session.reading import (
    delta,
    incremental_event,
    is_rewrite,
    label,
    replaced_events,
    seq_span,
    witness,
)
from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.exchange import Replacement, SessionAfter, SessionBefore
from compactcheck.invariants.verdict import Finding, Violation


def _edge_violation(
    before: SessionBefore, after: SessionAfter, replaced: Replacement
) -> Violation | None:
    open_after = replaced.open_before + replaced.span_delta
    if replaced.open_before == 0 and open_after == 0:
        return None
    checkpoint, shadowed = replaced_events(before, after, replaced)
    paired = [event for event in shadowed if delta(event) != 0]
    nodes = after.incremental.nodes
    position = nodes.index(replaced.seq) if replaced.seq in nodes else None
    outside: SessionEvent | None = None
    if replaced.open_before != 0:
        edge = f"{replaced.open_before} tool call(s) are open at the cut before it"
        inner = paired[0] if paired else None
        if position is not None and position > 0:
            outside = incremental_event(before, after, nodes[position - 1])
    else:
        edge = f"{open_after} tool call(s) are open at the cut after it"
        inner = paired[-1] if paired else None
        if position is not None and position + 1 < len(nodes):
            outside = incremental_event(before, after, nodes[position + 1])
    return Violation(
        "tool_pairing",
        f"{label(checkpoint)} replaces {seq_span(replaced.shadowed)} but {edge}: the span "
        f"splits a tool call from its result ({label(inner)} is shadowed, "
        f"{label(outside)} stays visible)",
        witness(inner, checkpoint, outside),
    )


@invariant(
    "session",
    "tool_pairing",
    "a compacted span is balanced at both edges, so the surface after has no orphan tool "
    "result and every call closed before is still closed",
)
def tool_pairing(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Balanced edges (spec 3.1 and 8.1.1-3), counting calls as the spec does."""
    del facts
    replaced = [r for r in after.incremental.replacements if r.type != "tool/result"]
    before_deltas = [delta(before.events[seq]) for seq in before.surface.nodes]
    exercised = bool(replaced) and any(before_deltas)
    found: list[Violation] = []
    for replacement in replaced:
        violation = _edge_violation(before, after, replacement)
        if violation is not None:
            found.append(violation)
    if not found and not after.incremental.broken:
        running = 0
        last_rewrite: SessionEvent | None = None
        for seq in after.incremental.nodes:
            event = incremental_event(before, after, seq)
            if event is not None and is_rewrite(event):
                last_rewrite = event
            running += delta(event)
            if running < 0:
                found.append(
                    Violation(
                        "tool_pairing",
                        f"{label(event)} on the surface after has no open tool call before "
                        f"it (the call was compacted away by {label(last_rewrite)})",
                        witness(last_rewrite, event),
                    )
                )
                break
        else:
            if running != sum(before_deltas):
                found.append(
                    Violation(
                        "tool_pairing",
                        f"the surface after leaves {running} tool call(s) open where the "
                        f"surface before left {sum(before_deltas)}: a call closed before is "
                        "open now, or the reverse",
                        witness(*(after.appended[:2])),
                    )
                )
    return Finding("tool_pairing", exercised, tuple(found))
