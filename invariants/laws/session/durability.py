"""The session laws on the durable log: a failure leaves no trace, a replay reads the same."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.session.attempts import group
from compactcheck.invariants.laws.session.reading import event_data, label, visible, witness
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore
from compactcheck.invariants.verdict import Finding, Violation, value_diff


@invariant(
    "session",
    "failure_atomic",
    "a failed compaction leaves the surface exactly as it was and logs only its start and its "
    "error end",
)
def failure_atomic(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Failure atomicity (spec 2.3, 8.1.7)."""
    del facts
    attempts = group(after.appended).attempts
    failed = [attempt for attempt in attempts if attempt.failed]
    if not failed:
        return Finding("failure_atomic", False)
    found: list[Violation] = []
    for attempt in failed:
        # A lone summary is the spec's commit-body failure (the checkpoint append threw).
        extra = [*attempt.checkpoints, *attempt.inside]
        if extra:
            error = event_data(attempt.end).get("error")
            found.append(
                Violation(
                    "failure_atomic",
                    f"compaction {attempt.name} failed ({label(attempt.end)}: {error!r}) yet "
                    f"also appended {', '.join(label(e) for e in extra[:3])}; a failed "
                    "attempt logs only its start and its error end",
                    witness(attempt.start, *extra[:2], attempt.end),
                )
            )
    view = visible(after)
    if not any(attempt.succeeded for attempt in attempts) and (
        view.nodes != before.surface.nodes
        or view.generation != before.surface.generation
        or view.messages != before.surface.messages
    ):
        changed = [e for e in after.appended if e.surface_op is not None][:2]
        found.append(
            Violation(
                "failure_atomic",
                f"compaction {failed[0].name} failed, but the surface changed: "
                f"{len(before.surface.nodes)} nodes at generation {before.surface.generation} "
                f"became {len(view.nodes)} at generation {view.generation}",
                witness(failed[0].start, *changed, failed[0].end),
                value_diff(list(before.surface.nodes), list(view.nodes)),
            )
        )
    return Finding("failure_atomic", True, tuple(found))


def _first_edit(before: SessionBefore, after: SessionAfter) -> tuple[int | None, str]:
    if len(after.log_data) != len(before.log_data):
        return None, (
            f"the handed log came back with {len(after.log_data)} events instead of "
            f"{len(before.log_data)}"
        )
    for index, (was, now) in enumerate(zip(before.log_data, after.log_data, strict=True)):
        if was != now:
            return index, f"the backend edited the handed log in place at seq {index}"
    return None, "the handed log came back unchanged"


@invariant(
    "session",
    "replay_deterministic",
    "folding the log after from scratch gives the same surface, generation and messages as the "
    "handed log continued with the appended events",
)
def replay_deterministic(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Deterministic replay (spec 1.4, 8.1.10)."""
    del facts
    scratch, live = after.surface, after.incremental
    found: tuple[Violation, ...] = ()
    if (scratch.nodes, scratch.generation, scratch.messages, scratch.broken) != (
        live.nodes,
        live.generation,
        live.messages,
        live.broken,
    ):
        edited, how = _first_edit(before, after)
        behind = (before.event_at(edited), after.event_at(edited)) if edited is not None else ()
        found = (
            Violation(
                "replay_deterministic",
                f"a replay of the log after shows {len(scratch.messages)} messages at generation "
                f"{scratch.generation}, the incremental result {len(live.messages)} at "
                f"generation {live.generation}: {how}",
                witness(*behind),
                value_diff(list(live.messages), list(scratch.messages)),
            ),
        )
    return Finding("replay_deterministic", bool(after.appended), found)
