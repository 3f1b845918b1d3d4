"""The constraints and goals a text states by label ("Constraint: ...") or under a heading.

A summary that hands the agent a rule states it so; the rulings read such claims to tell a rule
nobody gave (``compactcheck.invariants.rulings.invented``). Pure, no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

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


def stated(text: str) -> list[str]:
    """The constraints and goals a text states by label or under a heading, in order."""
    return list(stated_claims(text))


# A round's output texts are read again at the next round and by every reading of a round (the
# laws, the fidelity measure): each distinct text is read once while kept.
@lru_cache(maxsize=4096)
def stated_claims(text: str) -> tuple[str, ...]:
    """The claims ``text`` states, as a tuple (kept per text while it is read again)."""
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

__all__ = ["stated", "stated_claims"]
