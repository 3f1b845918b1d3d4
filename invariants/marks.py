"""The values and names of a fact, and whether an output still holds them: mechanical evidence.

A fact's marks are its numbers, versions, amounts, ids, paths and proper names
(``compactcheck.invariants.tokens``), read as lemmas. A mark the output holds in no form at all
proves the fact lost, whatever the wording; one it holds in a near form ("500 dollars" for
"$500", "Postgres" for "PostgreSQL", "src/auth.py" for "auth.py") proves nothing either way.
Pure, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from compactcheck.invariants.fact_keys import keys_of
from compactcheck.invariants.lexicon import MULTIPLIERS, lemma, value_like
from compactcheck.invariants.sentences import SentenceIndex
from compactcheck.invariants.tokens import distinctive_tokens

Presence = Literal["present", "near", "absent"]

# "e.g", "i.e": joined like an id, but words.
_ABBREVIATION = re.compile(r"^(?:[a-z]{1,2}\.)+[a-z]{1,2}$")
_CORE = re.compile(r"\d+(?:[.,]\d+)*")


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


def presence(mark: str, index: SentenceIndex) -> Presence:
    """Whether ``mark`` is in the output: as it is, in a near form, or not at all."""
    lemmas = index.lemmas
    if mark in lemmas:
        return "present"
    lowered = index.lowered
    if value_like(mark):
        if re.search(_near_value(mark), lowered):
            return "near"
        # A number written out in words ("five hundred") may be this one.
        return "near" if lemmas & MULTIPLIERS else "absent"
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


__all__ = ["Presence", "marks_of", "presence", "spelled"]
