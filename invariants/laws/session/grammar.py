"""The session laws on the form of the log: surface rules, bracket grammar, the lock."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.session.reading import event_data, label, witness
from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.session.exchange import Breach, SessionAfter, SessionBefore
from compactcheck.invariants.verdict import Finding, Violation


def _breach_event(after: SessionAfter, breach: Breach) -> SessionEvent | None:
    """The event of the log after that a breach was found at; None at the end of the log."""
    return after.event_at(breach.seq) if breach.seq is not None else None


def _breaks(
    law: str, breach: Breach, event: SessionEvent | None, behind: Sequence[SessionEvent | None]
) -> Violation:
    """The violation of the first rule the log after breaks, witnessed by the events behind it."""
    return Violation(
        law,
        f"the log after breaks {breach.rule} at {label(event, breach.seq)}: {breach.detail}",
        witness(*behind),
    )


@invariant(
    "session",
    "surface_well_formed",
    "the log after keeps the surface rules S1-S7: contiguous seqs, markers only on surface "
    "types, positional replaces of visible nodes that cite what they shadow",
)
def surface_well_formed(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """The log after folds to a surface without breaking an S rule."""
    del before, facts
    broken = after.surface.broken
    found: tuple[Violation, ...] = ()
    if broken is not None:
        event = _breach_event(after, broken)
        found = (_breaks("surface_well_formed", broken, event, [event]),)
    return Finding("surface_well_formed", bool(after.appended), found)


# S rules are surface_well_formed's, TP3 is tool_pairing's; every other rule is grammar.
_NOT_GRAMMAR = frozenset({"E1", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "TP3"})


def _is_grammar_rule(breach: Breach) -> bool:
    return breach.rule not in _NOT_GRAMMAR


@invariant(
    "session",
    "transaction_grammar",
    "the appended events keep the compaction bracket grammar (C1-C7), the strict rules "
    "G-a..G-k and the session's enclosure rules",
)
def transaction_grammar(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """start, then optionally summary and its checkpoint, then end(error?), in an owned turn."""
    del before, facts
    breach = after.breach
    found: tuple[Violation, ...] = ()
    if breach is not None and _is_grammar_rule(breach):
        event = _breach_event(after, breach)
        behind: list[SessionEvent | None] = [event]
        if event is None:
            # End of log (G-k): the unmatched start is what is behind it.
            behind.append(
                next((e for e in reversed(after.events) if e.type == "compaction/start"), None)
            )
        elif event.type == "user/message" and event.seq >= 1:
            behind.insert(0, after.event_at(event.seq - 1))
        found = (_breaks("transaction_grammar", breach, event, behind),)
    exercised = any(
        event.type.startswith("compaction/") or event.is_replacement for event in after.appended
    )
    return Finding("transaction_grammar", exercised, found)


@invariant(
    "session",
    "lock_exclusive",
    "no compaction opens while a live bracket holds the lock, no second bracket opens inside "
    "one, and every bracket the backend opens it also closes",
)
def lock_exclusive(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """The durable lock (spec 2.5): busy means no events; what is opened is closed."""
    del facts
    found: list[Violation] = []
    if before.live_lock is not None:
        intruder = next(
            (e for e in after.appended if e.type.startswith("compaction/") or e.is_replacement),
            None,
        )
        if intruder is not None:
            held = before.event_at(before.live_lock)
            found.append(
                Violation(
                    "lock_exclusive",
                    f"compaction/start seq {before.live_lock} holds a live lock (no end, no "
                    f"later end-seed), yet the backend appended {label(intruder)} instead of "
                    "reporting busy",
                    witness(held, intruder),
                )
            )
    open_start: SessionEvent | None = None
    for event in after.appended:
        if event.type == "compaction/start":
            if open_start is not None:
                found.append(
                    Violation(
                        "lock_exclusive",
                        f"a second compaction/start at seq {event.seq} opens while the one at "
                        f"seq {open_start.seq} is still open",
                        witness(open_start, event),
                    )
                )
            open_start = event
        elif event.type in ("compaction/end", "session/end-seed"):
            open_start = None
    if open_start is not None:
        found.append(
            Violation(
                "lock_exclusive",
                f"compaction/start seq {open_start.seq} "
                f"({event_data(open_start).get('compactionId')!r}) is never closed: the backend "
                "leaves the lock taken and every later compaction reports busy",
                witness(open_start),
            )
        )
    exercised = before.live_lock is not None or any(
        e.type == "compaction/start" for e in after.appended
    )
    return Finding("lock_exclusive", exercised, tuple(found))
