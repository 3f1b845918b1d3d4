"""The session laws on what a compaction does: a cheaper surface, its tail kept, history moved."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.session.attempts import group
from compactcheck.invariants.laws.session.reading import (
    checkpoints,
    incremental_event,
    label,
    replaced_events,
    seq_span,
    visible,
    witness,
)
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore
from compactcheck.invariants.session.pricing import node_price
from compactcheck.invariants.verdict import Finding, Violation, value_diff


@invariant(
    "session",
    "shrinks",
    "each checkpoint is priced below the nodes it replaces, and the surface's total price does "
    "not grow",
)
def shrinks(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Shrink rule (spec 2.7, 8.1.4) under the meter's heuristic."""
    del facts
    found: list[Violation] = []
    rewrites = checkpoints(after)
    for replaced in rewrites:
        checkpoint, shadowed = replaced_events(before, after, replaced)
        assert checkpoint is not None
        own = node_price(checkpoint)
        price = sum(node_price(event) for event in shadowed if event is not None)
        if own >= price:
            found.append(
                Violation(
                    "shrinks",
                    f"checkpoint {label(checkpoint)} is priced {own} tokens, not less than the "
                    f"{price} of {seq_span(replaced.shadowed)} it replaces",
                    witness(checkpoint),
                    value_diff({"below": price}, {"below": own}),
                )
            )
    if rewrites and not found and not after.incremental.broken:
        total_before = sum(node_price(before.events[seq]) for seq in before.surface.nodes)
        total_after = 0
        for seq in after.incremental.nodes:
            event = incremental_event(before, after, seq)
            total_after += node_price(event) if event is not None else 0
        if total_after > total_before:
            found.append(
                Violation(
                    "shrinks",
                    f"the surface after is priced {total_after} tokens, more than the "
                    f"{total_before} before compaction",
                    (),
                    value_diff(total_before, total_after),
                )
            )
    return Finding("shrinks", bool(rewrites), tuple(found))


@invariant(
    "session",
    "tail_retained",
    "every surface node outside the summarised range survives verbatim and in order, and the "
    "newest node is never compacted",
)
def tail_retained(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """One contiguous replacement; prefix and tail untouched (spec 8.1.2, 8.1.5)."""
    del facts
    grouped = group(after.appended)
    view = after.surface
    if not checkpoints(after) or view.broken is not None or not before.surface.nodes:
        return Finding("tail_retained", False)
    # What each checkpoint claims to summarise: its summary's list when it has one.
    summarised: dict[int, list[int]] = {}
    for attempt in grouped.attempts:
        seqs = attempt.shadowed_seqs()
        for checkpoint in attempt.checkpoints:
            if seqs is not None:
                summarised[checkpoint.seq] = seqs
    claimed: set[int] = set()
    shadowed_by: dict[int, int] = {}
    for replaced in after.incremental.replacements:
        for seq in replaced.shadowed:
            shadowed_by[seq] = replaced.seq
        if replaced.type == "user/message":
            claimed.update(summarised.get(replaced.seq, replaced.shadowed))
    pruned = {
        seq: replaced.seq
        for replaced in after.incremental.replacements
        if replaced.type == "tool/result"
        for seq in replaced.shadowed
    }
    found: list[Violation] = []
    newest = before.surface.nodes[-1]
    if newest in claimed:
        found.append(
            Violation(
                "tail_retained",
                f"the newest surface node {label(before.event_at(newest))} was compacted by "
                f"{label(after.event_at(shadowed_by.get(newest, -1)))}: compaction keeps the "
                "newest unit and never the whole history",
                witness(before.event_at(newest), after.event_at(shadowed_by.get(newest, -1))),
            )
        )
    position = {seq: index for index, seq in enumerate(view.nodes)}
    last_position = -1
    for index, seq in enumerate(before.surface.nodes):
        if seq in claimed:
            continue
        current = seq
        while current in pruned:  # a content-only tool/result rewrite keeps the node
            current = pruned[current]
        kept = position.get(current)
        lost = before.event_at(seq)
        if kept is None:
            replacer = after.event_at(shadowed_by.get(seq, -1))
            found.append(
                Violation(
                    "tail_retained",
                    f"{label(lost)}{' (the newest node)' if seq == newest else ''} lies "
                    "outside every summarised range, yet it is gone from "
                    f"the surface after" + (f" (hidden by {label(replacer)})" if replacer else ""),
                    witness(lost, replacer),
                )
            )
            break
        if kept <= last_position:
            found.append(
                Violation(
                    "tail_retained",
                    f"{label(lost)} moved: it no longer follows the nodes it followed before",
                    witness(lost),
                )
            )
            break
        last_position = kept
        if current == seq and view.rendered[kept] != before.surface.rendered[index]:
            found.append(
                Violation(
                    "tail_retained",
                    f"{label(lost)} is still on the surface but no longer renders the same message",
                    witness(lost, after.event_at(seq)),
                    value_diff(before.surface.rendered[index], view.rendered[kept]),
                )
            )
            break
    return Finding("tail_retained", True, tuple(found))


@invariant(
    "session",
    "progress",
    "a result that is not a logged failure changes the model-visible history; a successful "
    "compaction raises the replace generation (the proof an overflow retry needs)",
)
def progress(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """No-op honesty and the progress proof (spec 4.5, 8.1.6, 8.1.14)."""
    del facts
    attempts = group(after.appended).attempts
    view = visible(after)
    changed = view.messages != before.surface.messages
    found: list[Violation] = []
    won = next((attempt for attempt in attempts if attempt.succeeded), None)
    retry = (
        " (an overflow retry would resend the same context)" if before.mode == "overflow" else ""
    )
    if won is not None and (not changed or view.generation <= before.surface.generation):
        found.append(
            Violation(
                "progress",
                f"compaction {won.name} ended without error ({label(won.end)}), but the "
                f"model-visible history is unchanged: {len(view.messages)} messages, generation "
                f"{before.surface.generation} -> {view.generation}{retry}",
                witness(*won.checkpoints[:1], won.end),
            )
        )
    elif not changed and not any(attempt.failed for attempt in attempts):
        found.append(
            Violation(
                "progress",
                f"the backend answered a result in {before.mode} mode that leaves the "
                f"{len(view.messages)} model-visible messages unchanged, appending "
                f"{len(after.appended)} event(s); with nothing to compact it must decline{retry}",
                witness(*after.appended[:3]),
            )
        )
    return Finding("progress", True, tuple(found))
