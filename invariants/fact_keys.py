"""What must survive of a fact, and how a sentence of the output holds it: the lexical reading.

A fact's keys are its values, its names, its content lemmas and its polarity (``Keys``); a
sentence holds the fact when it carries its values, names and most of its content lemmas. This
reading says which ruling a sentence leans to (reworded, weakened, changed, contradicted); how
sure that ruling is, is ``compactcheck.invariants.certainty``'s to say. Pure, no model, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from compactcheck.invariants.sentences import (
    HEDGES,
    NEGATIONS,
    RESTRICTIONS,
    STRONG,
    Sentence,
    lemma,
    sentences,
    shape,
    value_like,
    words,
)
from compactcheck.invariants.tokens import STOPWORDS, distinctive_tokens

# Verbs a rewording swaps or leaves out freely ("Write no new dependencies" is "No new
# dependencies"): not keys of a fact, like the stop words.
LIGHT = STOPWORDS | {"add", "have", "get", "go", "put", "take", "let"}


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


def hedged(text: str) -> bool:
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
        elif found not in LIGHT and word not in STOPWORDS and len(found) > 2:
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
        hedged(fact),
    )


def needed(keys: Keys) -> int:
    """How many content lemmas a sentence must hold to say the fact (a rewording changes some)."""
    count = len(keys.content)
    # A fact named by a name or an id leans on it; one named by words (and bare numbers, which
    # turn up anywhere) needs more of its words.
    named = keys.names or any(not value.isdigit() for value in keys.values)
    return max(1, math.ceil((0.5 if named else 0.6) * count)) if count else 0


def hits(keys: Keys, lemmas: frozenset[str]) -> int:
    """How many content lemmas of the fact a sentence holds, a derived form counted too.

    "indentation" is held by "indent": a lemma that begins with the other's five letters or more.
    """
    exact = keys.content & lemmas
    count = len(exact)
    for key in keys.content - exact:
        if any(derived(key, other) for other in lemmas):
            count += 1
    return count


def derived(one: str, other: str) -> bool:
    short, long = (one, other) if len(one) <= len(other) else (other, one)
    return len(short) >= 5 and long.startswith(short) and not value_like(long)


def holds(keys: Keys, sentence: Sentence) -> bool:
    lemmas = sentence.lemmas
    return keys.values <= lemmas and keys.names <= lemmas and hits(keys, lemmas) >= needed(keys)


def negated(keys: Keys, sentence: Sentence) -> tuple[bool, frozenset[str]]:
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


def weakened(keys: Keys, sentence: Sentence, negations: frozenset[str]) -> bool:
    """Whether the sentence says the fact with its restriction relaxed."""
    if hedged(sentence.text) and not keys.hedged:
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


def changed(keys: Keys, sentence: Sentence) -> bool:
    """Whether the sentence says the fact with a value or a name of the same kind replaced."""
    lemmas = sentence.lemmas
    if hits(keys, lemmas) < needed(keys):
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


def substituted(fact: str, keys: Keys, sentence: Sentence) -> bool:
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
            foreign = before not in keys.own and before not in LIGHT and before not in NEGATIONS
            if other == head and foreign and len(before) > 2 and not value_like(before):
                return True
    return False


def verbatim_in(fact: str, text: str) -> bool:
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
        negations = negated(keys, sentence)[1] - theirs
        if bool(negations) != keys.negative:
            return True
    return False


__all__ = [
    "LIGHT",
    "Keys",
    "changed",
    "derived",
    "hedged",
    "hits",
    "holds",
    "keys_of",
    "needed",
    "negated",
    "retired_on",
    "substituted",
    "verbatim_in",
    "weakened",
]
