"""The words the sentence reading knows: negation, retirement, restriction, force, hedges, lemmas.

Small closed lists on purpose: the reading of a fact is only as trustworthy as the words it is
sure of, and a word it does not know makes a ruling unsure (``compactcheck.invariants.certainty``)
rather than guessed. Lemmas come from ``simplemma``, whose English dictionary ships inside its
wheel (no download). Pure, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

import simplemma

NEGATIONS: frozenset[str] = frozenset(
    """not no never nothing none nobody nowhere neither nor without avoid cannot
    forbid forbidden prohibit prohibited disallow disallowed refrain""".split()  # noqa: SIM905
)
# Words that retire a value in the clause that holds it ("3.11 is superseded", "instead of
# 3.11"); read as negation only when the fact itself does not use them.
RETIRING: frozenset[str] = frozenset(
    """instead rather replace replaces replacing replaced supersede supersedes superseding
    superseded obsolete deprecated outdated retire retired formerly previously
    anymore""".split()  # noqa: SIM905
)
# Words that restrict a fact to one thing: "Use only PostgreSQL" without one is a weaker fact.
RESTRICTIONS: frozenset[str] = frozenset({"only", "exclusively", "solely", "just", "sole"})
_RESTRICTION_PHRASES = ("other than", "anything but", "nothing but", "nothing else", "except")
# Words that make a rule absolute, and phrases that soften one into a preference.
STRONG: frozenset[str] = frozenset({"never", "always", "must", "mustn't", "required"})
HEDGES = (
    "if possible", "where possible", "when possible", "whenever possible", "if you can",
    "try to", "try not", "ideally", "preferably", "prefer", "if practical", "where practical",
    "when practical", "where feasible", "if feasible", "generally", "usually", "consider",
    "as much as possible", "unless necessary", "unless needed", "unless you have to",
    "recommended", "if convenient", "optional", "optionally", "may want", "nice to have",
    "when convenient", "should probably", "as far as possible", "if it can be helped",
)  # fmt: skip
NEGATING_OR_RETIRING = NEGATIONS | RETIRING
# Words of the same meaning in the rules agent prompts state, read as one word. Small on
# purpose: a synonym counted wrongly would let a changed fact pass.
_SYNONYMS: dict[str, str] = {
    "write": "add", "introduce": "add", "install": "add", "include": "add", "create": "add",
    "modify": "touch", "change": "touch", "edit": "touch", "alter": "touch",
    "delete": "remove", "drop": "remove", "erase": "remove",
    "execute": "run", "utilize": "use", "employ": "use", "e-mail": "email",
    "test": "test", "tests": "test", "method": "function", "repository": "repo",
    "record": "log", "print": "log", "output": "log",
    "below": "under", "beneath": "under", "above": "over", "exceed": "over",
    "target": "use", "targets": "use",
}  # fmt: skip
# Contractions whose base is not what a lemma dictionary returns for the first half.
_CONTRACTED = {"won't": "will", "can't": "can", "shan't": "shall", "ain't": "be"}


# Numbers written as words, read as their digits ("forty lines" is "40 lines"). "One" is left
# out: it is a pronoun as often as a number ("the old one").
_UNITS = (
    "zero", "", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
NUMBER_WORDS: dict[str, str] = {word: str(n) for n, word in enumerate(_UNITS) if word}
NUMBER_WORDS.update({word: str(20 + 10 * n) for n, word in enumerate(_TENS)})
NUMBER_WORDS.update(
    {f"{tens}-{unit}": str(20 + 10 * t + u) for t, tens in enumerate(_TENS)
     for u, unit in enumerate(("", "one", *_UNITS[2:10])) if unit}
)  # fmt: skip
# Words that multiply a number written in words ("five hundred"): a value near them may be
# the fact's, written out, so that its absence is not evidence.
MULTIPLIERS: frozenset[str] = frozenset({"hundred", "thousand", "million", "billion", "dozen"})
# Words that carry a count or a period in them ("weekly" is every 7 days, "half an hour" 30
# minutes, "a quarter" 25 %): a number absent beside one of them may be written in it.
COUNT_WORDS: frozenset[str] = frozenset(
    """weekly daily hourly monthly yearly annually quarterly fortnightly fortnight biweekly
    nightly quarter half twice thrice double triple couple pair score""".split()  # noqa: SIM905
)


@lru_cache(maxsize=16384)
def lemma(word: str) -> str:
    """The dictionary form of a lower-case word, mapped onto the synonyms rules share."""
    if word.endswith(("'s", "\u2019s")):
        word = word[:-2]
    if any(ch.isdigit() for ch in word) or any(ch in "./#:$%" for ch in word):
        return word
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    base = simplemma.lemmatize(word, lang="en").lower()
    # The dictionary reads "fixed", "fixes" and "fixing" as "fixe" (and "mix" so): no English
    # word, and not the lemma of "fix" itself, so that "Fix the bug" was not held by "fixed".
    if base.endswith("ixe") and base != word:
        base = base[:-1]
    return _SYNONYMS.get(base, _SYNONYMS.get(word, base))


def load_lexicon() -> None:
    """Load the lemma dictionary now (a sixth of a second of CPU), not on the first word read.

    The laws read prose from their first judgement on; a process that judges under a clock
    (a Hypothesis deadline, a timed benchmark) or forks judges from itself loads it first.
    """
    simplemma.lemmatize("compactions", lang="en")


@lru_cache(maxsize=16384)
def lemma_of(word: str) -> str:
    """The lemma of a word as written, a contraction read as its first half."""
    return lemma(_CONTRACTED.get(word) or uncontracted(word))


def uncontracted(word: str) -> str:
    return word[:-3] if word.endswith(("n't", "n\u2019t")) else word


def negating(word: str) -> bool:
    """Whether a lower-case word negates its clause ("not", "don't", "cannot")."""
    return word in NEGATIONS or word.endswith(("n't", "n\u2019t"))


def value_like(word: str) -> bool:
    """Whether a word is a value: an amount, a number, a version, an id with a digit."""
    return any(ch.isdigit() for ch in word)


def shape(word: str) -> str:
    """The kind of value a word is, so that "$500" is compared with "$5000", not with "3.12"."""
    stripped = word.lstrip("$#")
    if word.startswith("$"):
        return "money"
    if word.endswith("%"):
        return "percent"
    if re.fullmatch(r"v?\d+(?:\.\d+)+", stripped):
        return "version"
    if stripped.isdigit() or re.fullmatch(r"\d[\d,]*(?:\.\d+)?[kKmM]?", stripped):
        return "number"
    prefix = re.match(r"[A-Za-z_]+", stripped)
    return f"id:{prefix.group().lower()}" if prefix else "id"


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The words a clause may hold beside the fact's own and still state it for certain: grammar,
# the frame rules are stated in, the force of a rule. Closed on purpose (see
# ``compactcheck.invariants.certainty``): a word outside every list makes a reading unsure, so
# that a word the reading does not know ("off-limits", "alone") is never guessed at.
FUNCTION_WORDS = _set(
    """a an the this these those that which who whom whose it its they them their we our us you
    your i my me to of in on at by for with from into onto as and or so than then any all every
    each there here be
    is are am been being do does doing have has having get gets please kindly also too still
    now currently ever whatsoever absolutely strictly both either one anything something
    everything else you're we're they're it's you'll we'll"""
)
FRAME_WORDS = _set(
    """rule rules constraint constraints requirement requirements policy guideline guidelines
    note notes reminder remember important current active force hard strict firm key keep
    keeps stay stays remain remains leave leaves ensure ensures make sure project codebase code repo
    team
    agent assistant user everyone anyone task work goal goals objective time times
    circumstance circumstances update updated summary status context agreed decision state
    apply applies stand stands hold holds matter going forward henceforth module runtime app
    application package asked asks ask requested requests request wants wanted instructed
    instructs insisted insists told"""
)
FORCE_WORDS = _set("must should shall need needs required require requires mandatory will always")
# Words that grant rather than require: a rule restated with one of them permits ("feel free
# to touch it"), which is what contradicts a prohibition.
PERMISSION_WORDS = _set(
    """may can could might allowed allow allows permitted permit permits ok okay fine free
    freely feel welcome acceptable ahead needed useful want wants like go whatever"""
)
# Words that limit a rule to a case or a time ("only if", "unless", "before release").
CONDITION_WORDS = _set(
    """if unless when whenever while until provided providing except excepting once where
    wherever whether case before after during since"""
)
# Words that put a rule in the past, or lift it ("we used to", "was lifted", "no longer").
LAPSE_WORDS = RETIRING | _set(
    """used was were had did previously formerly earlier originally initially anymore
    prior past former old lifted revoked relaxed waived suspended expired ended yesterday ago
    dropped removed"""
)
# Words that soften a rule into a preference; the phrases of ``HEDGES`` beside them.
HEDGE_WORDS = _set(
    """ideally preferably generally usually typically mostly normally possibly probably perhaps
    maybe try tries trying attempt prefer preferred recommended recommend suggest suggested
    encouraged encourage consider avoid optional optionally where possible"""
) - _set("where")
# Words that bound a value from above or from below (read with the clause's negation: "must
# not exceed 40" bounds from above as "under 40" does). Lemmas: "below" is read as "under".
UPPER_BOUND = _set("under less fewer within most max maximum up shorter smaller")
LOWER_BOUND = _set("over more beyond least min minimum longer larger greater")
# What takes up an object fronted before it ("The public API: do not touch it").
PRONOUNS = _set("it them this these those")
# Forms of "be" and the verbs before a past participle that make it passive, not past ("must
# be touched", "stays untouched"), so that a participle after one is no narration.
PASSIVE_AUXILIARIES = _set(
    "be is are am been being get gets got stay stays remain remains keep keeps left"
)
