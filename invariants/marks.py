"""The values and names of a fact, and whether an output still holds them: mechanical evidence.

A fact's marks are its numbers, versions, amounts, ids, paths and proper names
(``compactcheck.invariants.tokens``), read as lemmas. A mark the output holds in no form at all
proves the fact lost, whatever the wording; one it holds in a near form ("500 dollars" for
"$500", "Postgres" for "PostgreSQL", "src/auth.py" for "auth.py") proves nothing either way.
Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from compactcheck.invariants.fact_keys import derived, keys_of
from compactcheck.invariants.lexicon import COUNT_WORDS, MULTIPLIERS, lemma, lemma_of, value_like
from compactcheck.invariants.sentences import SentenceIndex, words
from compactcheck.invariants.tokens import STOPWORDS, distinctive_tokens

Presence = Literal["present", "near", "absent"]

# "e.g", "i.e": joined like an id, but words.
_ABBREVIATION = re.compile(r"^(?:[a-z]{1,2}\.)+[a-z]{1,2}$")
_CORE = re.compile(r"\d+(?:[.,]\d+)*")
_ACRONYM = re.compile(r"\b[A-Z]{2,5}s?\b")


@lru_cache(maxsize=4096)
def marks_of(fact: str) -> tuple[str, ...]:
    """The values and names of a fact, as lemmas: what its absence proves lost."""
    keys = keys_of(fact)
    found: list[str] = []
    for mark in sorted(keys.values | keys.names):
        # A single letter ("I") names nothing; a single digit is a value ("at most 3 times").
        if (len(mark) < 2 and not mark.isdigit()) or _ABBREVIATION.match(mark):
            continue
        # A compound word ("read-only") is a word, not a name.
        if "-" in mark and mark.replace("-", "").isalpha():
            continue
        found.append(mark)
    return tuple(found)


def spelled(mark: str, fact: str) -> str:
    """A mark as the fact writes it ("API" for the lemma "api")."""
    for token in distinctive_tokens(fact):
        if lemma(token.lower()) == mark:
            return token
    return mark


def _near_value(mark: str) -> str:
    """The pattern of the near forms of a value: its number with its unit or prefix written
    otherwise ("500 dollars", "80 percent", "issue 1832", "v3.12", "bill 412")."""
    core = _CORE.search(mark)
    digits = re.escape(core.group() if core else mark)
    alone = r"(?<![\w.])"
    if mark.startswith("$"):
        return rf"{alone}{digits}\s*(?:dollars?|usd|bucks)\b|\b(?:usd|us\$)\s*{digits}(?!\w)"
    if mark.endswith("%"):
        return rf"{alone}{digits}\s*(?:percent|per\s+cent|pct)\b"
    if mark.startswith("#"):
        return rf"\b(?:no\.?|number|issue|bug|ticket|pr|pull request)\s*#?{digits}(?!\w)"
    ticket = re.fullmatch(r"([a-z]+)[-_#]?(\d+)", mark)
    if ticket is not None:
        # "BILL-412" as "bill 412", "v2" as "version 2".
        name, number = (re.escape(part) for part in ticket.groups())
        return rf"\b{name}[a-z]*[\s_#.-]*{number}(?!\w)"
    date = re.fullmatch(r"(\d{4})-\d{1,2}-\d{1,2}", mark)
    if date is not None:
        # A date written in words ("June 30, 2025") keeps its year.
        return rf"(?<![\w.-]){date.group(1)}(?![\w-])"
    if re.fullmatch(r"v?\d+(?:\.\d+)+", mark):
        # A version written "v3.12", or given a patch level ("3.12.1").
        return rf"{alone}v?{digits}(?!\w)"
    if "/" in mark:
        # A path written from another root ("src/auth.py" for "auth.py"), or by its file name.
        return rf"{re.escape(mark)}|(?<![\w.-]){re.escape(mark.rsplit('/', 1)[-1])}(?![\w-])"
    return r"(?!)"


@lru_cache(maxsize=4096)
def _acronyms(text: str) -> frozenset[str]:
    """The acronyms a text writes ("AWS", "GCP")."""
    return frozenset(_ACRONYM.findall(text))


def presence(mark: str, index: SentenceIndex) -> Presence:
    """Whether ``mark`` is in the output: as it is, in a near form, or not at all."""
    lemmas = index.lemmas
    if mark in lemmas:
        return "present"
    lowered = index.lowered
    if value_like(mark):
        if re.search(_near_value(mark), lowered):
            return "near"
        # A number written out in words ("five hundred", "weekly", "half an hour") may be this
        # one; an amount, a version or an id is not written so.
        if lemmas & MULTIPLIERS:
            return "near"
        plain = _CORE.fullmatch(mark.rstrip("%")) is not None
        return "near" if plain and lemmas & COUNT_WORDS else "absent"
    if re.search(rf"(?<!\w){re.escape(mark)}", lowered):
        return "near"
    if "/" in mark and mark.rsplit("/", 1)[-1] in lowered:
        return "near"
    # A name written short or long ("Postgres", "PostgreSQL"); a path or an id is no name.
    stem = mark[:5]
    long_name = len(mark) >= 5 and mark.isalpha()
    if long_name and any(other[:5] == stem for other in lemmas if len(other) >= 5):
        return "near"
    return "absent"


def written_out(mark: str, fact: str, index: SentenceIndex) -> bool:
    """Whether an acronym of ``fact`` ("UI") absent from the output may be written out there
    ("the interface"): the rest of the fact is in the output, and no other acronym is, as if
    in its place ("GCP" for "AWS")."""
    if not (mark.isalpha() and len(mark) <= 4) or any(map(_acronyms, index.texts)):
        return False
    rest = keys_of(fact).content - {mark}
    return bool(rest & index.lemmas)


def absent(marks: Sequence[str], fact: str, index: SentenceIndex) -> list[str]:
    """The marks of ``fact`` the output holds in no form, nor may have written out."""
    return [m for m in marks if presence(m, index) == "absent" and not written_out(m, fact, index)]


def words_anywhere(fact: str, index: SentenceIndex) -> bool:
    """Whether any word of a fact that is not grammar (or a form derived from it) is in the
    output; a fact of grammar alone is looked for word for word."""
    keys = keys_of(fact)
    own = keys.content or {
        lemma for word in words(fact) if word not in STOPWORDS and (lemma := lemma_of(word))
    }
    if not own:
        return fact.strip() in index
    lemmas = index.lemmas
    return any(k in lemmas or any(derived(k, other) for other in lemmas) for k in own)


__all__ = ["Presence", "absent", "marks_of", "presence", "spelled", "words_anywhere", "written_out"]
