"""A clause's words sorted against a fact: its negations, its bounds, and every other word.

A clause states a fact for certain only when each of its words is accounted for: a word of the
fact (or its lemma, synonym or derived form), a negation (counted), a bound ("under", "must not
exceed"), a restriction ("only"), or a word of the closed lists of
``compactcheck.invariants.lexicon``. A hedge, a condition, a lapse or a permission is flagged;
any other word is unknown, and makes the statement unsure. Pure, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from compactcheck.invariants.fact_keys import Keys, derived, keys_of
from compactcheck.invariants.lexicon import (
    CONDITION_WORDS,
    FORCE_WORDS,
    FRAME_WORDS,
    FUNCTION_WORDS,
    HEDGE_WORDS,
    HEDGES,
    LAPSE_WORDS,
    LOWER_BOUND,
    PASSIVE_AUXILIARIES,
    PERMISSION_WORDS,
    PRONOUNS,
    RESTRICTIONS,
    UPPER_BOUND,
    lemma_of,
    negating,
)
from compactcheck.invariants.sentences import words

Tagged = tuple[tuple[str, str], ...]
"""The words of a text with their lemmas, in order."""
NEUTRAL = FUNCTION_WORDS | FRAME_WORDS | FORCE_WORDS | PRONOUNS
"""Words a clause may hold beside a fact's and still state it: grammar, frame, force."""
RESTRICTING_PHRASES = ("other than", "anything but", "nothing but", "nothing else", "except")


@dataclass(frozen=True)
class FactShape:
    """What of a fact a clause must agree with: its keys, its negations, bounds, restriction."""

    keys: Keys
    negations: int
    bounds: frozenset[str]
    restricted: bool
    required: frozenset[str]
    hedges: tuple[str, ...]


# Verbs a rule is framed by ("Keep functions under 40 lines", "Functions stay under 40 lines"):
# a restatement may swap or drop them.
_FRAME_VERBS = frozenset({"keep", "stay", "remain", "ensure", "make", "have", "be", "set"})


@lru_cache(maxsize=4096)
def shape_of(fact: str) -> FactShape:
    keys = keys_of(fact)
    tagged = tagged_words(fact)
    lowered = f" {fact.lower()} "
    return FactShape(
        keys,
        sum(negating(word) for word, _ in tagged),
        _bounds(tagged, keys),
        keys.restricted or any(p in lowered for p in RESTRICTING_PHRASES),
        keys.values | keys.names | (keys.content - _FRAME_VERBS - FRAME_WORDS),
        tuple(hedge for hedge in HEDGES if f" {hedge} " in lowered),
    )


# A tag that names a rule or a step ("[c1]", "[s2]"): a label, not a word of the rule.
_TAG = re.compile(r"\[[^\]\s]{1,24}\]")


@lru_cache(maxsize=16384)
def tagged_words(text: str) -> Tagged:
    """The words of a text with their lemmas, in order, its tags ("[c1]") left out."""
    return tuple((word, lemma_of(word)) for word in words(_TAG.sub(" ", text)))


def _bounds(tagged: Tagged, keys: Keys) -> frozenset[str]:
    """The directions a text bounds a value in ("under 40": upper), its negation not applied.

    A fact with no value bounds nothing: its "under" is a place ("files under migrations/").
    """
    found: set[str] = set()
    if not keys.values:
        return frozenset()
    for word, lemma in tagged:
        if lemma in UPPER_BOUND or word in UPPER_BOUND:
            found.add("upper")
        elif lemma in LOWER_BOUND or word in LOWER_BOUND:
            found.add("lower")
    return frozenset(found)


def unprefixed(word: str, shape: FactShape) -> str | None:
    """The fact's own lemma a word negates by its prefix ("untouched": "touch"), or None."""
    if word.startswith("un") and len(word) > 5:
        base = lemma_of(word[2:])
        if base in shape.keys.content:
            return base
    return None


def stems(word: str) -> frozenset[str]:
    """The bases an inflected word may have where the lemma dictionary has none ("fixing" is
    "fix", "pushed" is "push", "running" is "run", "making" is "make")."""
    for ending in ("ing", "ed"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            base = word[: -len(ending)]
            doubled = {base[:-1]} if len(base) > 2 and base[-1] == base[-2] else set()
            return frozenset({base, f"{base}e", *doubled})
    return frozenset()


def holds_all(shape: FactShape, tagged: Tagged) -> bool:
    """Whether a clause's words hold every value, name and content word the fact needs."""
    lemmas = {lemma for _, lemma in tagged} | {s for word, _ in tagged for s in stems(word)}
    lemmas |= {base for word, _ in tagged if (base := unprefixed(word, shape))}
    for key in shape.required:
        if key not in lemmas and not any(derived(key, other) for other in lemmas):
            return False
    return bool(shape.required)


@dataclass(frozen=True)
class ClauseReading:
    """A clause's words sorted against the fact: negations, bounds, flags, unknown words."""

    negations: int
    bounds: frozenset[str]
    restricted: bool
    flags: dict[str, list[str]] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()


def own_word(word: str, lemma: str, keys: Keys) -> bool:
    """Whether a word is the fact's own: itself, its lemma, a stem or a derived form of one."""
    if word in keys.own or lemma in keys.own or stems(word) & keys.content:
        return True
    return any(derived(lemma, k) for k in keys.content)


# Adverbs that may stand between an auxiliary and its participle ("is never pushed").
_BETWEEN = frozenset(
    """never not always only also still ever all each both usually already just automatically
    explicitly strictly currently""".split()  # noqa: SIM905
)
# Verbs after which a participle is what someone wants done ("The user wants the test fixed"),
# not what was done.
_WISHING = frozenset({"want", "wants", "need", "needs", "expect", "expects", "wish"})
# Who a verb of wanting leaves the choice to ("if you want", "as you like").
_PERMITTED = frozenset({"you", "you'd", "you'll", "they", "whatever", "if"})


def auxiliary(tagged: Tagged, at: int) -> str:
    """The word before the participle at ``at``, adverbs and negations between them skipped;
    "" at the start."""
    for word, _ in reversed(tagged[:at]):
        if word not in _BETWEEN and not negating(word):
            return word
    return ""


def wished(tagged: Tagged, at: int) -> bool:
    """Whether the participle at ``at`` follows a verb of wanting in its clause."""
    return any(word in _WISHING for word, _ in tagged[:at])


def read_clause(shape: FactShape, tagged: Tagged, text: str) -> ClauseReading:
    keys = shape.keys
    negations = 0
    restricted = False
    flags: dict[str, list[str]] = {}
    unknown: list[str] = []
    lowered = f" {text.lower()} "
    for at, (word, lemma) in enumerate(tagged):
        before = tagged[at - 1][0] if at else ""
        after = tagged[at + 1][0] if at + 1 < len(tagged) else ""
        if word == "longer" and before == "no":
            flags.setdefault("lapse", []).append("no longer")
            negations -= 1
            continue
        if negating(word) or unprefixed(word, shape):
            negations += 1
            if word == "avoid" and "avoid" not in keys.own:
                flags.setdefault("hedge", []).append(word)
            continue
        bound = lemma in UPPER_BOUND | LOWER_BOUND or word in UPPER_BOUND | LOWER_BOUND
        if bound and keys.values:
            continue
        if word in RESTRICTIONS:
            restricted = True
            continue
        if own_word(word, lemma, keys):
            # A participle of the fact's verb with no "be" before it tells what was done
            # ("touched the API"), not a rule.
            if (
                (lemma in keys.content or stems(word) & keys.content)
                and word not in keys.own
                and word != lemma
                and word.endswith("ed")
                and auxiliary(tagged, at) not in PASSIVE_AUXILIARIES
                and not wished(tagged, at)
            ):
                flags.setdefault("lapse", []).append(word)
            continue
        if word in _WISHING and before not in _PERMITTED:
            # "The user wants it fixed" requires it; only "if you want" leaves it to you.
            continue
        for name, listed in (
            ("hedge", HEDGE_WORDS),
            ("condition", CONDITION_WORDS),
            ("lapse", LAPSE_WORDS),
            ("permission", PERMISSION_WORDS),
        ):
            if word in listed and not (name == "permission" and negating(after)):
                flags.setdefault(name, []).append(word)
                break
        else:
            if word not in NEUTRAL:
                unknown.append(word)
    for hedge in HEDGES:
        if f" {hedge} " in lowered and hedge not in shape.hedges:
            flags.setdefault("hedge", []).append(hedge)
    if any(p in lowered for p in RESTRICTING_PHRASES):
        restricted = True
    return ClauseReading(
        max(negations, 0), _bounds(tagged, keys), restricted, flags, tuple(dict.fromkeys(unknown))
    )


def effective_bound(bounds: frozenset[str], negations: int) -> str | None:
    """The one direction a clause bounds in, a negation turning it ("not over" is "under")."""
    if len(bounds) != 1:
        return None
    (direction,) = bounds
    if negations % 2:
        return "lower" if direction == "upper" else "upper"
    return direction


__all__ = [
    "NEUTRAL",
    "RESTRICTING_PHRASES",
    "ClauseReading",
    "FactShape",
    "Tagged",
    "effective_bound",
    "holds_all",
    "own_word",
    "read_clause",
    "shape_of",
    "stems",
    "tagged_words",
    "unprefixed",
]
