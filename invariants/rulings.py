"""A ruling per fact: what a compaction did to each goal and constraint the input held.

A reviewer reading a summary beside the facts it had to keep says of each one: kept word for
word, reworded, weakened (a restriction relaxed: "only" dropped, "never" become "avoid if
possible"), changed (a number, version, id or name differs), contradicted (its polarity
flipped), dropped, or, of a superseded value, stale (restated as current) or retired; and of a
constraint or goal the input never held, invented. This module makes those rulings from the
sentences of the output (``compactcheck.invariants.sentences``). Pure, no model, no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from compactcheck.invariants.sentences import (
    HEDGES,
    NEGATIONS,
    RESTRICTIONS,
    STRONG,
    Sentence,
    SentenceIndex,
    kept_while_short,
    lemma,
    sentences,
    shape,
    value_like,
    words,
)
from compactcheck.invariants.tokens import STOPWORDS, distinctive_tokens

Ruling = Literal[
    "kept", "reworded", "weakened", "changed", "contradicted", "stale", "retired", "dropped",
    "invented",
]  # fmt: skip
RULINGS: tuple[Ruling, ...] = (
    "kept", "reworded", "weakened", "changed", "contradicted", "stale", "retired", "dropped",
    "invented",
)  # fmt: skip
"""Every ruling, in the order reports count them."""
FAILING: frozenset[Ruling] = frozenset({"changed", "contradicted", "stale", "dropped", "invented"})
"""The rulings a law fails on; "weakened" has a law of its own, so that a team can waive it."""
FAITHFUL: frozenset[Ruling] = frozenset({"kept", "reworded", "retired"})
"""The rulings of a fact the output still says as the input did (or, superseded, no longer says)."""
FactKind = Literal["goal", "constraint", "superseded", "invented"]
# Verbs a rewording swaps or leaves out freely ("Write no new dependencies" is "No new
# dependencies"): not keys of a fact, like the stop words.
_LIGHT = STOPWORDS | {"add", "have", "get", "go", "put", "take", "let"}


@dataclass(frozen=True)
class FactRuling:
    """What the output did to one fact, and the output sentence the ruling rests on."""

    fact: str
    kind: FactKind
    ruling: Ruling
    sentence: str | None = None
    message: int | None = None


@dataclass(frozen=True)
class Keys:
    """What must survive of a fact: its values, its names, its content lemmas, its polarity."""

    values: frozenset[str]
    names: frozenset[str]
    content: frozenset[str]
    own: frozenset[str]
    negative: bool
    restricted: bool
    strong: bool
    hedged: bool

    @property
    def all(self) -> frozenset[str]:
        """Every key a sentence is looked up by."""
        return self.values | self.names | self.content

    @property
    def anchors(self) -> frozenset[str]:
        """The keys whose clause carries the fact's polarity: its values, else all its keys."""
        return self.values or self.all


def _hedged(text: str) -> bool:
    lowered = f" {text.lower()} "
    return any(f" {hedge}" in lowered for hedge in HEDGES)


@lru_cache(maxsize=4096)
def keys_of(fact: str) -> Keys:
    """The keys of a fact (read once per fact text)."""
    names = {lemma(token.lower()) for token in distinctive_tokens(fact) if not value_like(token)}
    values: set[str] = set()
    content: set[str] = set()
    own: set[str] = set()
    negative = restricted = strong = False
    for word in words(fact):
        if word in NEGATIONS or word.endswith(("n't", "n\u2019t")):
            negative = True
            strong = strong or word in STRONG or word in {"never", "mustn't"}
            continue
        if word in RESTRICTIONS:
            restricted = True
            continue
        own.add(word)
        if word in STRONG:
            strong = True
            continue
        found = lemma(word)
        own.add(found)
        if value_like(found):
            values.add(found)
        elif found in names or word in names:
            names.add(found)
        elif found not in _LIGHT and word not in STOPWORDS and len(found) > 2:
            content.add(found)
    if "no longer" in fact.lower():
        negative = True
    names = {name for name in names if name in own}
    content -= names
    return Keys(
        frozenset(values),
        frozenset(names),
        frozenset(content),
        frozenset(own),
        negative,
        restricted,
        strong,
        _hedged(fact),
    )


def _needed(keys: Keys) -> int:
    """How many content lemmas a sentence must hold to say the fact (a rewording changes some)."""
    count = len(keys.content)
    # A fact named by a name or an id leans on it; one named by words (and bare numbers, which
    # turn up anywhere) needs more of its words.
    named = keys.names or any(not value.isdigit() for value in keys.values)
    return max(1, math.ceil((0.5 if named else 0.6) * count)) if count else 0


def _hits(keys: Keys, lemmas: frozenset[str]) -> int:
    """How many content lemmas of the fact a sentence holds, a derived form counted too.

    "indentation" is held by "indent": a lemma that begins with the other's five letters or more.
    """
    exact = keys.content & lemmas
    count = len(exact)
    for key in keys.content - exact:
        if any(_derived(key, other) for other in lemmas):
            count += 1
    return count


def _derived(one: str, other: str) -> bool:
    short, long = (one, other) if len(one) <= len(other) else (other, one)
    return len(short) >= 5 and long.startswith(short) and not value_like(long)


def _holds(keys: Keys, sentence: Sentence) -> bool:
    lemmas = sentence.lemmas
    return keys.values <= lemmas and keys.names <= lemmas and _hits(keys, lemmas) >= _needed(keys)


def _negated(keys: Keys, sentence: Sentence) -> tuple[bool, frozenset[str]]:
    """Whether the clauses carrying the fact negate it, and by which words."""
    anchors = keys.anchors
    carrying = [clause for clause in sentence.clauses if clause.lemmas & anchors]
    if carrying:
        # The clause that says the fact is the one carrying most of it: an aside that names an
        # old value it replaces ("(this replaces [c3]: Don't ever push to main)") shares a word
        # with the new fact but does not negate it.
        most = max(len(clause.lemmas & anchors) for clause in carrying)
        carrying = [clause for clause in carrying if len(clause.lemmas & anchors) == most]
    found: set[str] = set()
    for clause in carrying or sentence.clauses:
        found |= clause.negations - keys.own
    return bool(found), frozenset(found)


def _weakened(keys: Keys, sentence: Sentence, negations: frozenset[str]) -> bool:
    """Whether the sentence says the fact with its restriction relaxed."""
    if _hedged(sentence.text) and not keys.hedged:
        return True
    if keys.restricted:
        lowered = sentence.text.lower()
        said = any(word in RESTRICTIONS for word in words(lowered)) or any(
            phrase in lowered for phrase in ("other than", "anything but", "nothing but", "except")
        )
        if not said:
            return True
    # "Never push" said as "avoid pushing": a prohibition become a preference.
    return keys.strong and keys.negative and bool(negations) and negations <= {"avoid"}


def _values(lemmas: Iterable[str]) -> set[str]:
    return {found for found in lemmas if value_like(found)}


def _names(sentence: Sentence) -> set[str]:
    return {
        lemma(token.lower()) for token in distinctive_tokens(sentence.text) if not value_like(token)
    }


def _changed(keys: Keys, sentence: Sentence) -> bool:
    """Whether the sentence says the fact with a value or a name of the same kind replaced."""
    lemmas = sentence.lemmas
    if _hits(keys, lemmas) < _needed(keys):
        return False
    lost_values = keys.values - lemmas
    lost_names = keys.names - lemmas
    if not (lost_values or lost_names):
        return False
    foreign = _values(lemmas) - keys.values
    for value in lost_values:
        if not any(shape(value) == shape(other) for other in foreign):
            return False
    if lost_names:
        other_names = _names(sentence) - keys.names - keys.own
        anchored = bool(keys.values & lemmas or keys.content & lemmas or keys.names & lemmas)
        if not (other_names and anchored):
            return False
    return True


def _sequence(text: str) -> list[str]:
    return [lemma(word) for word in words(text)]


def _substituted(fact: str, keys: Keys, sentence: Sentence) -> bool:
    """Whether a content word of the fact is replaced by another right before a word it qualifies.

    "the orders table" said as "the users table": the word directly before "table" differs and
    is no word of the fact. Only a word directly before a held key is compared, so that a
    rewording that drops or moves a word ("Always answer in French") is not read as a change.
    """
    lemmas = sentence.lemmas
    missing = keys.content - lemmas
    if not missing:
        return False
    ours = _sequence(fact)
    theirs = _sequence(sentence.text)
    for at, word in enumerate(ours[:-1]):
        head = ours[at + 1]
        if word not in missing or head not in keys.all or head not in lemmas:
            continue
        for where, other in enumerate(theirs[1:], start=1):
            before = theirs[where - 1]
            foreign = before not in keys.own and before not in _LIGHT and before not in NEGATIONS
            if other == head and foreign and len(before) > 2 and not value_like(before):
                return True
    return False


def _verbatim(fact: str, text: str) -> bool:
    """Whether ``fact`` occurs in ``text`` as whole words ("3.1" is not in "3.12")."""
    at = text.find(fact)
    while at >= 0:
        end = at + len(fact)
        before_ok = at == 0 or not text[at - 1].isalnum()
        after_ok = end >= len(text) or not (
            text[end].isalnum() or (text[end] in "._-/" and text[end + 1 : end + 2].isalnum())
        )
        if before_ok and after_ok:
            return True
        at = text.find(fact, at + 1)
    return False


def rule(fact: str, index: SentenceIndex, kind: FactKind = "constraint") -> FactRuling:
    """The ruling on one fact of the input, read in the output's sentences.

    A superseded fact is "stale" where a sentence still asserts it, else "retired".
    """
    found = _read(fact, index, kind)
    verbatim = kind != "superseded" and fact.strip() and found.ruling != "weakened"
    if verbatim and any(_verbatim(fact.strip(), text) for text in index.texts):
        return FactRuling(fact, kind, "kept", found.sentence or fact.strip(), found.message)
    return found


def _read(fact: str, index: SentenceIndex, kind: FactKind) -> FactRuling:
    superseded = kind == "superseded"
    keys = keys_of(fact)
    candidates = index.holding(keys.all)
    held = [index.sentence(n) for n in sorted(candidates) if _holds(keys, index.sentence(n))]
    if keys.all and held:
        agreeing: list[tuple[Sentence, frozenset[str]]] = []
        for sentence in held:
            negated, negations = _negated(keys, sentence)
            if negated == keys.negative:
                agreeing.append((sentence, negations))
        if superseded:
            if agreeing:
                return FactRuling(
                    fact, kind, "stale", agreeing[-1][0].text, agreeing[-1][0].message
                )
            return FactRuling(fact, kind, "retired", held[-1].text, held[-1].message)
        if not agreeing:
            return FactRuling(fact, kind, "contradicted", held[0].text, held[0].message)
        for sentence, _ in agreeing:
            if _substituted(fact, keys, sentence):
                return FactRuling(fact, kind, "changed", sentence.text, sentence.message)
        for sentence, negations in agreeing:
            if not _weakened(keys, sentence, negations):
                return FactRuling(fact, kind, "reworded", sentence.text, sentence.message)
        first = agreeing[0][0]
        return FactRuling(fact, kind, "weakened", first.text, first.message)
    if superseded:
        return FactRuling(fact, kind, "retired")
    ranked = sorted(candidates, key=lambda n: (-candidates[n], n))
    for number in ranked:
        sentence = index.sentence(number)
        if _changed(keys, sentence):
            return FactRuling(fact, kind, "changed", sentence.text, sentence.message)
    return FactRuling(fact, kind, "dropped")


def retired_on(fact: str, line: str, others: Sequence[str] = ()) -> bool:
    """Whether ``line`` names ``fact`` only to retire or negate it ("3.11 no longer applies").

    The negating words of ``others`` (other facts named on the line) are theirs, not its.
    """
    keys = keys_of(fact)
    anchors = keys.anchors
    theirs = {word for other in others for word in words(other)}
    for sentence in sentences(line):
        if not sentence.lemmas & anchors:
            continue
        negations = _negated(keys, sentence)[1] - theirs
        if bool(negations) != keys.negative:
            return True
    return False


# A line that states a constraint or goal by its label ("Constraint: Use MySQL 8."), and a
# heading under whose list items each state one.
_LABELLED = re.compile(
    r"^\s*(?:[-*\u2022]|\d{1,3}[.)])?\s*\**\s*(?P<label>constraints?|rules?|requirements?|goals?"
    r"|tasks?|objectives?)\s*\**\s*:\s*\**\s*(?P<text>\S.*?)\s*$",
    re.IGNORECASE,
)
_HEADING = re.compile(
    r"^\s*(?:#+\s*)?\**\s*(?:current\s+|active\s+)?(?:constraints?|rules?|requirements?|goals?)"
    r"\s*\**\s*:?\s*\**\s*$",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)])\s+(?:\[[^\]\s]{1,24}\]\s*)?(?P<text>\S.*?)\s*$")


_SENTENCE_START = re.compile(r"(?<=[.!?])\s+(?=[A-Z*])")

_SAID = frozenset({"kept", "reworded", "weakened"})


def stated(text: str) -> list[str]:
    """The constraints and goals a text states by label or under a heading, in order."""
    return list(_stated(text))


# A round's output texts are read again at the next round and by every reading of a round (the
# laws, the fidelity measure): each distinct text is read once while kept.
@lru_cache(maxsize=4096)
def _stated(text: str) -> tuple[str, ...]:
    found: list[str] = []
    under = False
    for line in text.splitlines():
        kind, said = _line(line)
        if kind == "stated":
            found.extend(said)
            under = False
        elif kind == "heading":
            under = True
        elif kind == "item" and under:
            found.extend(said)
        elif kind != "blank":
            under = False
    return tuple(found)


# A new summary is mostly lines of the summary it replaces: each line is classified once while
# kept, whatever text it is read in.
@lru_cache(maxsize=16384)
def _line(line: str) -> tuple[str, tuple[str, ...]]:
    """What a line is to ``_stated`` (stated, heading, item, other, blank) and what it states."""
    labelled = _LABELLED.match(line)
    if labelled is not None:
        return "stated", (labelled["text"],)
    # A label may open a later sentence of the line ("Summary: ... Constraint: Use MySQL 8.").
    later = [m for piece in _SENTENCE_START.split(line)[1:] if (m := _LABELLED.match(piece))]
    if later:
        return "stated", tuple(m["text"] for m in later)
    if _HEADING.match(line):
        return "heading", ()
    item = _ITEM.match(line)
    if item is not None:
        return "item", (item["text"],)
    return ("other" if line.strip() else "blank"), ()


# A history states the same claims at every round (its system prompt's constraints, its goal
# line, a summary's restatement of them) against the same facts: each pair is ruled once while
# kept.
@kept_while_short
def _says_one(claim: str, facts: tuple[str, ...]) -> bool:
    """Whether ``claim``, read alone, says one of ``facts`` (kept, reworded or weakened)."""
    own = SentenceIndex([claim])
    return any(rule(fact, own).ruling in _SAID for fact in facts)


def invented(after: Sequence[str], before: Sequence[str], facts: Sequence[str]) -> list[FactRuling]:
    """The constraints and goals the output states that neither the facts nor the input held.

    The input is read only when the output states one (most outputs state none by label).
    """
    found: list[FactRuling] = []
    held: SentenceIndex | None = None
    known = tuple(facts)
    for message, text in enumerate(after):
        for claim in _stated(text):
            # A claim that says a fact (or a superseded one, ruled stale) is not new; one that
            # changes a fact is reported on that fact, and is a constraint nobody gave too.
            if _says_one(claim, known):
                continue
            if any(claim in text for text in before):
                continue
            held = held or SentenceIndex(list(before))
            if rule(claim, held).ruling in _SAID:
                continue
            found.append(FactRuling(claim, "invented", "invented", claim, message))
    return found


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
        found.append(rule(text, out, "constraint"))
    stale_in: set[str] = set()
    for text in dict.fromkeys(superseded):
        made = rule(text, out, "superseded")
        found.append(made)
        if made.ruling == "stale" and made.sentence is not None:
            stale_in.add(made.sentence)
    # A current value "changed" into a superseded one is the old value restated: the current
    # one is dropped, the old one stale.
    found = [
        FactRuling(r.fact, r.kind, "dropped")
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


__all__ = [
    "FAILING",
    "FAITHFUL",
    "RULINGS",
    "FactKind",
    "FactRuling",
    "Keys",
    "Ruling",
    "invented",
    "keys_of",
    "retired_on",
    "rule",
    "rule_text",
    "rulings",
    "sentences",
    "stated",
]
