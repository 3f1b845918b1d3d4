"""How much of what matters one compaction kept: shares beside the laws' pass or fail.

A law says whether a compaction broke a promise; a measure says how much of each kind of fact
survived it, so that two compactors that both lose facts can still be told apart ("this one
keeps 58 % of the changed files, the reference 100 %"). Each measure counts only the facts the
input actually held (a fact the history never mentioned cannot be lost), and reads the output
as the model would see it after the compaction: the message list, the snapshot with its raw
tail, or the session's surface. Pure functions, no I/O.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from compactcheck.invariants.canonical import json_text
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.invariants.facts import Counter, Facts
from compactcheck.invariants.laws.messages.content import (
    BROKEN_RULINGS,
    fact_rulings,
    reassertions,
)
from compactcheck.invariants.laws.messages.order import pruning
from compactcheck.invariants.laws.messages.reading import FactLookup
from compactcheck.invariants.laws.messages.size import message_size
from compactcheck.invariants.messages import ChatMessage
from compactcheck.invariants.rulings import FAITHFUL, FactRuling
from compactcheck.invariants.session.exchange import SessionAfter, SessionBefore

# The fact kinds every round is measured on, in the order reports show them.
KINDS = ("must_keep", "constraints", "pending", "changed_files")
KIND_NAMES = {
    "must_keep": "must-keep facts",
    "constraints": "current constraints",
    "pending": "pending steps",
    "changed_files": "changed files",
    "reasserted": "superseded constraints reasserted",
    "pruned": "tool result text pruned to placeholders",
    "compression": "compression (size out / size in)",
}


@dataclass(frozen=True)
class Survival:
    """How many of the facts of one kind that the input held are still in the output.

    ``review`` counts those of ``kept`` whose ruling the reading could not settle: the laws
    leave them for review, neither lost nor surely kept (messages view, tokens reading only).
    """

    kept: int = 0
    present: int = 0
    review: int = 0

    @property
    def share(self) -> float | None:
        """kept / present; None when the input held none (nothing could be lost)."""
        return self.kept / self.present if self.present else None


@dataclass(frozen=True)
class RoundFidelity:
    """What one compaction kept of each fact kind, and how much it shrank the history.

    ``reasserted`` counts superseded constraints: ``present`` those the input mentions,
    ``kept`` those the output asserts as current again (the lower its share the better).
    ``size_in`` and ``size_out`` are measured under ``counter``. ``pruned`` counts tool result
    characters, as ``tool_results_unpruned`` reads them.
    """

    round: int
    must_keep: Survival
    constraints: Survival
    pending: Survival
    changed_files: Survival
    reasserted: Survival
    size_in: int
    size_out: int
    counter: str
    # Characters of the tool results the output still answers by call id (``present``) and of
    # those that placeholders replaced (``kept``: the lower its share the better); messages
    # view only.
    pruned: Survival = Survival()
    # How many goals and constraints got each ruling (``compactcheck.invariants.rulings``);
    # messages view, tokens reading only.
    rulings: Mapping[str, int] = field(default_factory=dict)

    @property
    def compression(self) -> float | None:
        """size out / size in (1.0: nothing shrank); None for an empty input."""
        return self.size_out / self.size_in if self.size_in else None

    def share(self, kind: str) -> float | None:
        """The share of one kind by name, compression included."""
        if kind == "compression":
            return self.compression
        survival: Survival = getattr(self, kind)
        return survival.share


class _Holder(Protocol):
    def holds(self, fact: str) -> bool: ...


class _Text:
    """A text facts are looked up in verbatim (the snapshot and session views' JSON)."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Each fact's answer, read once: the must-keep facts are often the changed files and
        # pending steps again, and a scan of a long surface costs more than the lookup.
        self._held: dict[str, bool] = {}

    def holds(self, fact: str) -> bool:
        held = self._held.get(fact)
        if held is None:
            held = self._held[fact] = fact in self.text
        return held


def _survival(items: Iterable[str], held_in: _Holder, held_out: _Holder) -> Survival:
    present = [item for item in dict.fromkeys(items) if item and held_in.holds(item)]
    return Survival(sum(held_out.holds(item) for item in present), len(present))


def _measured(
    round: int,
    facts: Facts,
    held_in: _Holder,
    held_out: _Holder,
    reasserted: Survival,
    sizes: tuple[int, int, str],
) -> RoundFidelity:
    """The four survival shares of one round, read off the texts before and after."""
    must_keep = facts.must_keep or (*facts.changed_files, *facts.pending_step_ids)
    return RoundFidelity(
        round,
        must_keep=_survival(must_keep, held_in, held_out),
        constraints=_survival(facts.constraints, held_in, held_out),
        pending=_survival(facts.pending_step_ids, held_in, held_out),
        changed_files=_survival(facts.changed_files, held_in, held_out),
        reasserted=reasserted,
        size_in=sizes[0],
        size_out=sizes[1],
        counter=sizes[2],
    )


def messages_fidelity(
    round: int,
    before: Sequence[ChatMessage],
    after: Sequence[ChatMessage],
    facts: Facts,
    counter: Counter = "characters",
) -> RoundFidelity:
    """One messages compaction: facts looked up as the laws look them up (``Facts.reading``).

    A superseded constraint counts as reasserted where ``constraints_preserved`` would flag it:
    the output's last mention asserts it as current, though the input's did not (read by
    tokens, where its ruling is a certain "stale"; one left for review is counted in
    ``review``).
    """
    held_in, held_out = FactLookup.of(before, facts.reading), FactLookup.of(after, facts.reading)
    read = reassertions(before, after, facts)
    sizes = (message_size(before, counter), message_size(after, counter), counter)
    reasserted = Survival(len(read.asserted), len(read.stale))
    measured = _measured(round, facts, held_in, held_out, reasserted, sizes)
    cut = pruning(before, after)
    measured = replace(measured, pruned=Survival(cut.pruned, cut.present))
    if facts.reading != "tokens":
        return measured
    made = fact_rulings(before, after, facts)
    constraints = _constraints_kept(facts.constraints, held_in, held_out, made)
    superseded = {r.fact: r for r in made if r.kind == "superseded"}
    sure = unsure = 0
    for text, _, _ in read.asserted:
        ruling = superseded.get(text)
        if ruling is None or (ruling.certain and ruling.ruling == "stale"):
            sure += 1
        elif not ruling.certain:
            unsure += 1
    return replace(
        measured,
        constraints=constraints,
        reasserted=Survival(sure, len(read.stale), unsure),
        rulings=dict(Tally(r.ruling for r in made)),
    )


def _constraints_kept(
    constraints: Sequence[str],
    held_in: FactLookup,
    held_out: FactLookup,
    made: Sequence[FactRuling],
) -> Survival:
    """The current constraints kept, as ``constraints_preserved`` reads them sentence by sentence.

    A constraint said in other words ("Don't touch the public API") is kept though its tokens
    are not all there; one whose polarity flipped or whose value changed, for certain, is not,
    though they are. A constraint whose ruling is unsure is counted kept, as the law fails only
    on a certain ruling, and counted in ``review`` too. Otherwise (no ruling, or one the law
    leaves to the tokens) the tokens decide.
    """
    ruled = {r.fact: r for r in made if r.kind == "constraint"}
    present = [text for text in dict.fromkeys(constraints) if text and held_in.holds(text)]
    kept = review = 0
    for text in present:
        made_on = ruled.get(text)
        ruling = made_on.ruling if made_on is not None else None
        if made_on is not None and not made_on.certain and ruling != "weakened":
            kept += 1
            review += 1
        elif ruling in FAITHFUL or (ruling not in BROKEN_RULINGS and held_out.holds(text)):
            kept += 1
    return Survival(kept, len(present), review)


def snapshot_fidelity(
    round: int, before: SnapshotBefore, after: SnapshotAfter, facts: Facts
) -> RoundFidelity:
    """One snapshot compaction: facts looked up in the sealed snapshot and the raw tail.

    The input is what the compactor was handed (the state and the events); sizes are the
    context the model would see before and after, in characters. A superseded constraint counts
    as reasserted when the snapshot lists it among its constraints.
    """
    held_in = json_text(before.handed)
    held_out = json_text(
        {
            "snapshot": after.snapshot.to_json_data(),
            "rawTail": [event.to_json_data() for event in after.raw_tail],
        }
    )
    stale = [text for text in dict.fromkeys(facts.superseded_constraints) if text in held_in]
    listed = set(after.snapshot.constraints)
    reasserted = Survival(sum(text in listed for text in stale), len(stale))
    sizes = (before.context_chars, after.context_chars, "characters")
    return _measured(round, facts, _Text(held_in), _Text(held_out), reasserted, sizes)


def session_fidelity(
    round: int, before: SessionBefore, after: SessionAfter, facts: Facts
) -> RoundFidelity:
    """One session compaction: facts looked up in the surface the model sees before and after.

    Sizes are the surfaces' messages as JSON characters. Reassertion is not measured here: the
    session log records a constraint's replacement as an event, not as text a summary could
    read back as current, so ``reasserted`` is always empty (no share).
    """
    held_in = json_text(list(before.surface.messages))
    held_out = json_text(list(after.surface.messages))
    sizes = (len(held_in), len(held_out), "characters")
    return _measured(round, facts, _Text(held_in), _Text(held_out), Survival(), sizes)
