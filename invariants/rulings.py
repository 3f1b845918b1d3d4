"""A ruling per fact: what a compaction did to each goal and constraint the input held, and how
sure the reading is of it.

A reviewer says of each fact: kept word for word, reworded, weakened ("never" become "avoid
if possible"), changed (a number, version, id or name differs), contradicted (polarity flipped),
dropped, or, of a superseded value, stale (restated as current) or retired; and of a rule the
input never held, invented.

Each ruling is ``certain`` only on mechanical evidence (``compactcheck.invariants.certainty``),
else ``unsure``, leaning to the ruling the lexical reading gives
(``compactcheck.invariants.fact_keys``), with the reason it cannot settle it. A law fails only
on a certain ruling; an unsure one is an item for a reader or a judge. Pure, no model, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from compactcheck.invariants.additions import additions, said_otherwise
from compactcheck.invariants.certainty import Certainty, Statement, noted_mention, statement
from compactcheck.invariants.claims import stated, stated_claims
from compactcheck.invariants.fact_keys import (
    Keys,
    changed,
    holds,
    keys_of,
    negated,
    retired_on,
    substituted,
    verbatim_in,
    weakened,
)
from compactcheck.invariants.marks import absent, marks_of, presence, spelled, words_anywhere
from compactcheck.invariants.sentences import (
    RETIRING,
    Sentence,
    SentenceIndex,
    kept_while_short,
    sentences,
)

Ruling = Literal[
    "kept", "reworded", "weakened", "changed", "contradicted", "stale", "retired", "dropped",
    "invented",
]  # fmt: skip
RULINGS: tuple[Ruling, ...] = get_args(Ruling)
"""Every ruling, in the order reports count them."""
FAILING: frozenset[Ruling] = frozenset({"changed", "contradicted", "stale", "dropped", "invented"})
"""The rulings a law fails on; "weakened" has a law of its own, so that a team can waive it."""
FAITHFUL: frozenset[Ruling] = frozenset({"kept", "reworded", "retired"})
"""The rulings of a fact the output still says as the input did (or, superseded, no longer says)."""
FactKind = Literal["goal", "constraint", "superseded", "invented"]


@dataclass(frozen=True)
class FactRuling:
    """What the output did to one fact, the output sentence the ruling rests on, and how sure
    the reading is: ``certain`` on mechanical evidence, else ``unsure``; ``reason`` says which
    evidence, or why there is none."""

    fact: str
    kind: FactKind
    ruling: Ruling
    sentence: str | None = None
    message: int | None = None
    certainty: Certainty = "unsure"
    reason: str = ""

    @property
    def certain(self) -> bool:
        """Whether the ruling rests on mechanical evidence."""
        return self.certainty == "certain"


def _sure(made: FactRuling, reason: str, **changes: object) -> FactRuling:
    return replace(made, certainty="certain", reason=reason, **changes)  # type: ignore[arg-type]


def _unsure(made: FactRuling, reason: str) -> FactRuling:
    return replace(made, certainty="unsure", reason=reason)


def rule(
    fact: str,
    index: SentenceIndex,
    kind: FactKind = "constraint",
    marks: Sequence[str] | None = None,
    others: Sequence[str] = (),
) -> FactRuling:
    """The ruling on one fact of the input, read in the output's sentences, with its certainty.

    A superseded fact is "stale" where a sentence still asserts it, else "retired"; ``marks``
    are the values and names that tell it from its replacement (its own by default);
    ``others`` the input's other facts, whose values a sentence may name without changing it.
    """
    lean = lean_of(fact, index, kind)
    if kind == "superseded":
        return _superseded(fact, index, lean, marks_of(fact) if marks is None else tuple(marks))
    return _current(fact, index, lean, others)


def lean_of(fact: str, index: SentenceIndex, kind: FactKind = "constraint") -> FactRuling:
    """The ruling the lexical reading leans to, with no certainty of its own."""
    found = _read(fact, index, kind)
    verbatim = kind != "superseded" and fact.strip() and found.ruling != "weakened"
    if verbatim and any(verbatim_in(fact.strip(), text) for text in index.texts):
        return FactRuling(fact, kind, "kept", found.sentence or fact.strip(), found.message)
    return found


def _read(fact: str, index: SentenceIndex, kind: FactKind) -> FactRuling:
    superseded = kind == "superseded"
    keys = keys_of(fact)
    candidates = index.holding(keys.all)
    held = [index.sentence(n) for n in sorted(candidates) if holds(keys, index.sentence(n))]
    if keys.all and held:
        agreeing: list[tuple[Sentence, frozenset[str]]] = []
        for sentence in held:
            negative, negations = negated(keys, sentence)
            if negative == keys.negative:
                agreeing.append((sentence, negations))
        if superseded:
            if agreeing:
                last = agreeing[-1][0]
                return FactRuling(fact, kind, "stale", last.text, last.message)
            return FactRuling(fact, kind, "retired", held[-1].text, held[-1].message)
        if not agreeing:
            return FactRuling(fact, kind, "contradicted", held[0].text, held[0].message)
        for sentence, _ in agreeing:
            if substituted(fact, keys, sentence):
                return FactRuling(fact, kind, "changed", sentence.text, sentence.message)
        for sentence, negations in agreeing:
            if not weakened(keys, sentence, negations):
                return FactRuling(fact, kind, "reworded", sentence.text, sentence.message)
        first = agreeing[0][0]
        return FactRuling(fact, kind, "weakened", first.text, first.message)
    if superseded:
        return FactRuling(fact, kind, "retired")
    ranked = sorted(candidates, key=lambda n: (-candidates[n], n))
    for number in ranked:
        sentence = index.sentence(number)
        # A call's arguments name other values and names: they restate no rule.
        if not sentence.wiring and changed(keys, sentence):
            return FactRuling(fact, kind, "changed", sentence.text, sentence.message)
    return FactRuling(fact, kind, "dropped")


def statements(
    fact: str, index: SentenceIndex, superseded: bool = False
) -> list[tuple[Sentence, Statement]]:
    """Each output sentence one clause of which holds the whole fact, with how it states it;
    of a superseded fact, also each that names its values with a note retiring them."""
    keys = keys_of(fact)
    found: list[tuple[Sentence, Statement]] = []
    for number in sorted(index.holding(keys.all)):
        sentence = index.sentence(number)
        read = statement(fact, sentence, index.following(number)) if holds(keys, sentence) else None
        if superseded and (read is None or read.says is None):
            read = noted_mention(fact, sentence) or read
        if read is not None:
            found.append((sentence, read))
    return found


def _current(
    fact: str, index: SentenceIndex, lean: FactRuling, others: Sequence[str] = ()
) -> FactRuling:
    """The certainty of the ruling on a goal or a current constraint."""
    marks = marks_of(fact)
    missing = absent(marks, fact, index)
    if missing:
        gone = f"{spelled(missing[0], fact)!r} appears nowhere in the output"
        if lean.ruling == "changed" and lean.sentence is not None:
            return _sure(lean, f"{gone}, and {lean.sentence!r} says the rest of it otherwise")
        return _sure(lean, gone, ruling="dropped", sentence=None, message=None)
    if not marks and not words_anywhere(fact, index):
        return _sure(lean, "none of its words appears in the output", ruling="dropped")
    read = statements(fact, index)
    same = [(s, st) for s, st in read if st.says == "same"]
    other = [(s, st) for s, st in read if st.says != "same"]
    if same and not other:
        sentence, why = same[0]
        twin = said_otherwise(fact, index, {s.text for s, _ in same}, others)
        if twin is not None:  # kept here, another value there: which rule holds, a reader says
            changed_at = replace(lean, ruling="changed", sentence=twin.text, message=twin.message)
            why_both = f"{sentence.text!r} and, a value replaced, {twin.text!r}"
            return _unsure(changed_at, f"the output says it both ways: {why_both}")
        ruling = "kept" if lean.ruling == "kept" else "reworded"
        return _sure(
            lean, why.reason, ruling=ruling, sentence=sentence.text, message=sentence.message
        )
    if other and not same and all(st.says == "opposite" for _, st in other):
        sentence, why = other[0]
        return _sure(
            lean,
            why.reason,
            ruling="contradicted",
            sentence=sentence.text,
            message=sentence.message,
        )
    if same and other:
        both = f"the output says it both ways: {same[0][0].text!r} and {other[0][0].text!r}"
        alone = [(s, _read(fact, SentenceIndex([s.text]), lean.kind)) for s, _ in other]
        soft = [s for s, read in alone if read.ruling == "weakened"]
        if soft:  # kept here, softened there ("Avoid ... if possible"): weakening's to review
            lean = replace(lean, ruling="weakened", sentence=soft[0].text, message=soft[0].message)
        return _unsure(lean, both)
    if other:
        return _unsure(lean, other[0][1].reason)
    if lean.sentence is not None:
        return _unsure(lean, f"no one clause of {lean.sentence!r} holds every word of it")
    if not marks:
        return _unsure(lean, "it has no value or name, and some of its words are in the output")
    return _unsure(lean, "its values and names are (or may be) in the output; none states it")


def _noted_anywhere(sentence: Sentence) -> bool:
    """Whether a sentence holds a replacement or lapse note anywhere in its clauses."""
    return any(
        "retired" in c.negations or "no longer" in c.negations or c.negations & RETIRING
        for c in sentence.clauses
    )


def _superseded(
    fact: str, index: SentenceIndex, lean: FactRuling, marks: tuple[str, ...]
) -> FactRuling:
    """The certainty of the ruling on a superseded constraint: stale or retired."""
    if marks and len(absent(marks, fact, index)) == len(marks):
        shown = spelled(marks[0], fact)
        reason = f"{shown!r}, which tells it from its replacement, appears nowhere in the output"
        return _sure(lean, reason, ruling="retired")
    # A restatement holds every value and name: one of them gone, it cannot be restated.
    gone = absent(marks_of(fact), fact, index)
    if gone:
        reason = f"{spelled(gone[0], fact)!r} appears nowhere in the output: it is not restated"
        return _sure(lean, reason, ruling="retired")
    if not marks_of(fact) and not words_anywhere(fact, index):
        return _sure(lean, "none of its words appears in the output", ruling="retired")
    read = statements(fact, index, superseded=True)
    if not read:
        return _unsure(lean, "its values are in the output, in no clause that states it")
    # The output's last word on it decides, as a reader takes it: a rule listed and then
    # replaced is retired; one replaced and then restated is stale again.
    sentence, last = read[-1]
    if last.says in ("noted", "opposite"):
        return _sure(
            lean, last.reason, ruling="retired", sentence=sentence.text, message=sentence.message
        )
    if last.says == "same" and not _noted_anywhere(sentence):
        earlier = " (its last mention)" if len(read) > 1 else ""
        return _sure(
            lean,
            f"{sentence.text!r} restates it with no replacement note{earlier}",
            ruling="stale",
            sentence=sentence.text,
            message=sentence.message,
        )
    if last.says is None:
        return _unsure(lean, last.reason)
    return _unsure(lean, f"{sentence.text!r} restates it, and notes a replacement beside it")


_SAID = frozenset({"kept", "reworded", "weakened"})
_ON_A_FACT = frozenset({"changed", "contradicted", "stale"})


# A history states the same claims at every round (its system prompt's constraints, its goal
# line, a summary's restatement of them) against the same facts: each pair is ruled once while
# kept.
@kept_while_short
def _says_one(claim: str, facts: tuple[str, ...]) -> bool:
    """Whether ``claim``, read alone, says one of ``facts`` (kept, reworded or weakened)."""
    own = SentenceIndex([claim])
    return any(lean_of(fact, own).ruling in _SAID for fact in facts)


def invented(after: Sequence[str], before: Sequence[str], facts: Sequence[str]) -> list[FactRuling]:
    """The constraints and goals the output states that neither the facts nor the input held.

    A labelled claim is certain when none of its values and names (or, with none, of its words)
    is in the input, unsure when some are; any other clause holding what the input does not
    (``compactcheck.invariants.additions``) and saying no fact is unsure: it may be a new rule.
    """
    found: list[FactRuling] = []
    known = tuple(facts)
    # What the input holds includes the facts it was given (a history may state them by label).
    held = SentenceIndex([*before, *known])
    joined = "\x00".join(before)  # NUL parts a text from its wiring, never within either
    for message, text in enumerate(after):
        if all(part in joined for part in text.split("\x00")):
            continue  # each part is in an input message (kept, or cut short mid-word): nothing new
        for claim in stated_claims(text):
            # A claim that says a fact (or a superseded one, ruled stale) is not new; one that
            # changes a fact is reported on that fact, and is a constraint nobody gave too.
            if _says_one(claim, known):
                continue
            if any(claim in text for text in before):
                continue
            if lean_of(claim, held).ruling in _SAID:
                continue
            made = FactRuling(claim, "invented", "invented", claim, message)
            found.append(_new_claim(made, held))
        for added in additions(text, message, held):
            # One item a sentence: a claim reported, or an earlier piece of it, covers it.
            if any(added.clause in r.fact or r.fact in added.sentence for r in found):
                continue
            # Only a certain restatement is surely no new rule; a fact changed is its own ruling.
            if _restates(added.clause, known):
                continue
            made = FactRuling(added.clause, "invented", "invented", added.sentence, message)
            found.append(_unsure(made, f"it may state a rule nobody gave: {added.reason}"))
    return found


@kept_while_short
def _restates(piece: str, facts: tuple[str, ...]) -> bool:
    """Whether ``piece``, read alone, restates one of ``facts`` for certain (or changes it)."""
    read = [rule(fact, SentenceIndex([piece])) for fact in facts]
    return any(r.ruling in _ON_A_FACT or (r.certain and r.ruling in FAITHFUL) for r in read)


def _new_claim(made: FactRuling, before: SentenceIndex) -> FactRuling:
    """An invented claim with its certainty: sure when nothing of it is in the input."""
    marks = marks_of(made.fact)
    if marks:
        there = [mark for mark in marks if presence(mark, before) != "absent"]
        if not there:
            shown = ", ".join(repr(spelled(mark, made.fact)) for mark in marks)
            return _sure(made, f"none of {shown} appears in the input")
        shown = repr(spelled(there[0], made.fact))
        return _unsure(made, f"{shown} is in the input, in no sentence that states the claim")
    if not words_anywhere(made.fact, before):
        return _sure(made, "none of its words appears in the input")
    return _unsure(made, "its words are in the input, in no sentence that states the claim")


def rulings(
    before: Sequence[str],
    after: Sequence[str],
    goal: str | None,
    constraints: Sequence[str],
    superseded: Sequence[str] = (),
) -> tuple[FactRuling, ...]:
    """A ruling on the goal, each current and superseded constraint, and each invented one.

    ``before`` and ``after`` are the texts of the input and output messages.
    """
    out = SentenceIndex(list(after))
    found: list[FactRuling] = []
    if goal and goal.strip():
        found.append(rule(goal, out, "goal"))
    for text in dict.fromkeys(constraints):
        others = [other for other in (*constraints, *superseded) if other != text]
        found.append(rule(text, out, "constraint", others=others))
    current = {mark for text in constraints for mark in marks_of(text)}
    stale_in: set[str] = set()
    for text in dict.fromkeys(superseded):
        own = tuple(mark for mark in marks_of(text) if mark not in current)
        made = rule(text, out, "superseded", own)
        found.append(made)
        if made.ruling == "stale" and made.sentence is not None:
            stale_in.add(made.sentence)
    # A current value "changed" into a superseded one is the old value restated: the current
    # one is dropped, the old one stale.
    found = [
        replace(
            r,
            ruling="dropped",
            sentence=None,
            message=None,
            reason=f"{r.sentence!r} restates a superseded value in its place ({r.reason})",
        )
        if r.ruling == "changed" and r.sentence in stale_in
        else r
        for r in found
    ]
    known = [text for text in (goal, *constraints, *superseded) if text]
    found.extend(invented(after, before, known))
    return tuple(found)


def rule_text(fact: str, summary: str, kind: FactKind = "constraint") -> Ruling:
    """The ruling on one fact against one summary text (the labelled corpus's question)."""
    return rule(fact, SentenceIndex([summary]), kind).ruling


def ruling_of(fact: str, summary: str, kind: FactKind = "constraint") -> FactRuling:
    """The ruling on one fact against one summary text, with its certainty and reason."""
    return rule(fact, SentenceIndex([summary]), kind)


__all__ = [
    "FAILING", "FAITHFUL", "RULINGS", "FactKind", "FactRuling", "Keys", "Ruling", "invented",
    "keys_of", "lean_of", "retired_on", "rule", "rule_text", "ruling_of", "rulings", "sentences",
    "stated", "statements",
]  # fmt: skip
