"""The session-view laws: what a compaction may append to a session log (spec section 8).

Every checker takes the log before, what the backend appended (with the log after read from
scratch and incrementally) and the run's facts. Each is one pass over the log and the appended
events; lookups go by seq into the event tuples, never by scanning.
"""

from __future__ import annotations

from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.session import checkpoint, durability, effect, grammar, pairing
from compactcheck.invariants.laws.session.checkpoint import CLOSE_TAG, OPEN_TAG
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore

SessionLaw = Invariant[SessionBefore, SessionAfter]

# Catalogue order: reports and listings show the laws in this order.
LAWS: tuple[SessionLaw, ...] = (
    grammar.surface_well_formed,
    grammar.transaction_grammar,
    pairing.tool_pairing,
    grammar.lock_exclusive,
    effect.shrinks,
    effect.tail_retained,
    durability.failure_atomic,
    durability.replay_deterministic,
    checkpoint.summary_hygiene,
    checkpoint.checkpoint_identifiable,
    effect.progress,
)

__all__ = ["CLOSE_TAG", "LAWS", "OPEN_TAG", "SessionLaw"]
