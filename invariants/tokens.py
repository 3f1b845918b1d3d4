"""The distinctive tokens of a fact: what a faithful paraphrase keeps when it rewords a sentence.

A summariser with a real model rewrites "Use Python 3.12" as "the project targets Python 3.12";
the words change, the facts do not. What carries a fact are its distinctive tokens: numbers and
versions, ticket ids, paths and file names, identifiers, acronyms and proper names. A fact with
no such token falls back on its content words. The messages laws read facts through these tokens
unless the run asks for the verbatim reading (``Facts.reading``). No model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# A token: letters, digits and the joiners that keep a path, version or id in one piece (the
# paraphrasing fake model splits text with the same pattern).
TOKEN = re.compile(r"#?[A-Za-z0-9][A-Za-z0-9._/%#:+-]*[A-Za-z0-9%]|#?[A-Za-z0-9]")
_JOINERS = frozenset("._/-#:+")
# Words that carry no fact on their own; what is left of a sentence without them are its
# content words.
STOPWORDS: frozenset[str] = frozenset(
    """a an the and or but if then so of to in on at by for with from into onto over under
    above below than that this these those it its is are was were be been being do does did
    done any each every all some more most less least just also very can could should would
    will shall may might must need needs use used using keep make made please up out as
    about after before again new other such own same few""".split()  # noqa: SIM905
)
# Words that turn a fact into its opposite: "Never push to main" without "never" is another
# fact, so they are part of what must survive, whatever else the fact holds.
NEGATIONS: frozenset[str] = frozenset({"not", "no", "never", "nothing", "none", "only", "without"})


def _distinctive(word: str, first: bool) -> bool:  # first: the word opens a sentence
    """Whether a word names something: a number, a joined id or path, an acronym or a name."""
    if any(ch.isdigit() for ch in word) or "%" in word:
        return True
    if any(ch in _JOINERS for ch in word):
        return True
    if len(word) >= 2 and word.isupper():
        return True
    # A capital inside a sentence is a name ("Python", "French"); an opening word's is grammar.
    return word[0].isupper() and not first


@lru_cache(maxsize=4096)
def distinctive_tokens(text: str) -> tuple[str, ...]:
    """The tokens of ``text`` that name something, in order, each once; () when none does."""
    found: dict[str, None] = {}
    for match in TOKEN.finditer(text):
        word = match.group()
        if _distinctive(word, _starts_sentence(text, match.start())):
            found[word] = None
    return tuple(found)


def _starts_sentence(text: str, at: int) -> bool:
    """Whether a word at ``at`` opens a sentence, a line or a label ("Goal: Fix ...")."""
    before = text[:at].rstrip(" \t\"'([-*")
    return not before or before[-1] in ".:!?\n]"


@lru_cache(maxsize=4096)
def content_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` that are not stop words, lower-cased, in order, each once."""
    found: dict[str, None] = {}
    for match in TOKEN.finditer(text):
        word = match.group().lower()
        if word not in STOPWORDS and (len(word) > 2 or word in NEGATIONS):
            found[word] = None
    return tuple(found)


@lru_cache(maxsize=4096)
def negations(text: str) -> tuple[str, ...]:
    """The negating words of ``text``, lower-cased, each once."""
    return tuple(dict.fromkeys(w for w in content_words(text) if w in NEGATIONS))


def _only_numbers(tokens: Sequence[str]) -> bool:
    # A bare number ("40", "5") turns up anywhere (line numbers, counts): alone it tells little.
    return all(token.isdigit() for token in tokens)


def fact_tokens(text: str) -> tuple[str, ...]:
    """What must survive of a fact: its distinctive tokens and negations, else its content words.

    A fact named only by bare numbers keeps its content words too ("under 40 lines").
    """
    distinctive = distinctive_tokens(text)
    if not distinctive:
        return content_words(text)
    if _only_numbers(distinctive):
        return (*distinctive, *(w for w in content_words(text) if w not in distinctive))
    return (*distinctive, *negations(text))


def _words_of(corpus: str) -> frozenset[str]:
    return frozenset(match.group().lower() for match in TOKEN.finditer(corpus))


class TokenIndex:
    """A text's tokens, built once, asked many times whether a fact's tokens all occur in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._words: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        """Every token of the text, lower-cased (for content words)."""
        if self._words is None:
            self._words = _words_of(self.text)
        return self._words

    def holds(self, fact: str) -> bool:
        """Whether all tokens of ``fact`` occur (distinctive ones as written, words in any case)."""
        return not self.missing(fact) and (bool(fact_tokens(fact)) or fact in self.text)

    def missing(self, fact: str) -> list[str]:
        """The tokens of ``fact`` that do not occur (empty when the fact is held)."""
        tokens = fact_tokens(fact)
        distinctive = set(distinctive_tokens(fact))
        return [
            token
            for token in tokens
            if not (_occurs(token, self.text) if token in distinctive else token in self.words)
        ]


def _whole(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is not part of a longer token ("login.py" in "login.py.bak")."""

    def joined(at: int, step: int) -> bool:
        if not 0 <= at < len(text):
            return False
        if text[at].isalnum():
            return True
        # A joiner continues the token only when something follows it: "3.12." ends a sentence.
        return text[at] in _JOINERS and 0 <= at + step < len(text) and text[at + step].isalnum()

    return not (joined(start - 1, -1) or joined(end, 1))


def _at(token: str, text: str) -> int:
    """Where ``token`` first occurs in ``text`` as a whole token (not inside a longer one); -1."""
    start = text.find(token)
    while start >= 0:
        if _whole(text, start, start + len(token)):
            return start
        start = text.find(token, start + 1)
    return -1


def _occurs(token: str, text: str) -> bool:
    """Whether ``token`` occurs in ``text`` as a whole token."""
    return _at(token, text) >= 0


def discriminating(fact: str, others: Sequence[str]) -> tuple[str, ...]:
    """The tokens of ``fact`` that none of ``others`` has: what tells it from them.

    "Use Python 3.11" against "Use Python 3.12" is told by "3.11" alone; a fact that shares
    every token with another has nothing that tells it apart, and is read by all its tokens.
    """
    theirs = {token for other in others for token in fact_tokens(other)}
    own = tuple(token for token in fact_tokens(fact) if token not in theirs)
    return own or fact_tokens(fact)


def _find(token: str, line: str, lowered: str) -> int:
    """Where ``token`` first occurs in ``line`` as a whole token; -1 when it does not.

    A token without capitals (a content word, a version, a path) is looked up in any case.
    """
    return _at(token, line if any(ch.isupper() for ch in token) else lowered)


def position(tokens: Sequence[str], line: str) -> int | None:
    """Where a fact read by ``tokens`` is mentioned on ``line``: its first token's position.

    None unless every token occurs on the line.
    """
    lowered = line.lower()
    first: int | None = None
    for token in tokens:
        at = _find(token, line, lowered)
        if at < 0:
            return None
        first = at if first is None else min(first, at)
    return first
