"""A text read as a careful reviewer reads it: sentence by sentence, clause by clause, by lemma.

A fact is said by one sentence of a summary, and its polarity by the clauses of that sentence
that carry it: "Python 3.11 no longer applies: the project now targets Python 3.12." negates
3.11 and asserts 3.12, and a "not" in another sentence negates nothing. Words are compared by
lemma ("functions" is "function", "containing" is "contain"), so a faithful rewording keeps a
fact that its exact spelling would lose.

Sentences and clauses are split here rather than by a sentence-boundary library: what matters
is the clause (";", ":", a parenthesis, "but", "instead of"), which such libraries do not split,
and versions, paths and ids ("3.12.", "auth/login.py") must stay whole, which the token pattern
below already ensures. Lemmas come from ``simplemma``, whose English dictionary ships inside its
wheel (no download). Pure and linear in the length of the text; no model, no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache, wraps
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from compactcheck.invariants.lexicon import (
    HEDGES,
    NEGATING_OR_RETIRING,
    NEGATIONS,
    RESTRICTIONS,
    RETIRING,
    STRONG,
    lemma,
    lemma_of,
    load_lexicon,
    shape,
    value_like,
)

# A word: letters, digits and the joiners that keep a version, path, id or amount in one piece;
# an apostrophe stays inside ("don't", "user's") so that a contraction is read as one word.
WORD = re.compile(r"[$#]?[A-Za-z0-9](?:[A-Za-z0-9._/%#:+$'\u2019-]*[A-Za-z0-9%])?")
# Where a sentence ends: a stop followed by a space or the end, a line break, a list bullet.
# Written to open with the one character class every end starts with (a closing quote or
# bracket, a space), so that a split skips straight to those characters instead of trying each
# branch at every position; the stop is looked behind for. It splits where the plain
# "(?<=[.!?])[\"')\]]*(?:\s+|$)|\n+|\s\u2022\s" does (property-tested), which differs only
# by an empty last piece after a final stop.
_SENTENCE = re.compile(
    r"[\s\"')\]](?:(?<=[.!?][\"')\]])[\"')\]]*(?:\s+|$)|(?<=[.!?]\s)\s*"
    r"|(?<=\n)\n*|(?<=\s)\u2022\s)"
)
# Where a clause ends inside a sentence. A retiring marker ("instead of", "replaces") opens a
# clause of its own, which it negates. The ends, in the order they are tried: a semicolon or
# colon; a dash between spaces; a comma or spaces before a contrasting word; a comma before
# another rule ("Don't touch the API, don't ever push to main, and keep refunds under $500":
# each rule its own clause, so that one's negation is not another's); spaces before a
# retiring marker. The pattern opens with the one character class every end starts with (as
# ``_SENTENCE``); it splits exactly where the plain alternation of those ends does
# (property-tested).
_CONTRASTING = r"(?=(?:but|whereas|while|although|though|however)\b)"
_ANOTHER_RULE = r"(?=(?:and|then)\s|[A-Za-z]+n[\u2019']t\b)"
_RETIRING_MARKER = (
    r"(?=(?:instead\s+of|rather\s+than|in\s+place\s+of|replac(?:es|ing|ed)|"
    r"superseding|supersedes|formerly|previously)\b)"
)
_CLAUSE = re.compile(
    r"[\s;:,](?:(?<=[;:])\s+|(?<=\s)\s*[;:]\s+|(?<=\s)\s*[\u2013\u2014]\s+|(?<=\s)\s*-\s+"
    rf"|(?<=,)\s+{_CONTRASTING}|(?<=\s)\s*{_CONTRASTING}|(?<=,)\s+{_ANOTHER_RULE}"
    rf"|(?<=\s)\s*{_RETIRING_MARKER})",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"\(([^()]*)\)")


@dataclass(frozen=True)
class Clause:
    """A clause of a sentence: its lemmas, and whether it negates or retires what it holds."""

    lemmas: frozenset[str]
    negations: frozenset[str]
    text: str

    @property
    def lowered(self) -> str:
        """The clause's text, lower-cased (for phrases)."""
        return self.text.lower()


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text, split into clauses; ``message`` is where it was read."""

    text: str
    clauses: tuple[Clause, ...]
    message: int
    lemmas: frozenset[str] = field(default=frozenset(), compare=False)
    """Every lemma of the sentence (its clauses' together)."""
    wiring: bool = False
    """Read in a message's wiring (a tool call's id, name or arguments, a result's call id),
    after its text: a value it holds is in the message, but no one wrote it as prose."""

    def __post_init__(self) -> None:
        if not self.lemmas:
            union = frozenset().union(*(clause.lemmas for clause in self.clauses))
            object.__setattr__(self, "lemmas", union)


def words(text: str) -> Iterator[str]:
    """The words of ``text``, lower-cased, a trailing stop removed ("3.12." is "3.12")."""
    for match in WORD.finditer(text):
        yield match.group().lower().rstrip(".:")


# Phrases that restrict rather than negate ("nothing else", "no other"), and words that, opening
# a clause, retire what it holds ("(was $500)", "instead of 3.11").
_NOT_NEGATING = re.compile(
    r"\b(?:(?:nothing|nowhere)\s+(?:else|but|outside|except|other\s+than)|no\s+other"
    r"|not\s+only)\b",
    re.IGNORECASE,
)
_RETIRING_OPENERS = re.compile(
    r"^\W*(?:was|were|previously|formerly|replaces|replacing|replaced|instead\s+of"
    r"|rather\s+than|in\s+place\s+of)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=16384)
def _clause(text: str) -> Clause:
    """One clause read (the same words recur in other sentences: read once while kept)."""
    lemmas: set[str] = set()
    negations: set[str] = set()
    if _RETIRING_OPENERS.match(text):
        negations.add("retired")
    said = list(words(text))
    for word in said:
        lemmas.add(lemma_of(word))
    lowered = text.lower()
    # Most clauses hold no restricting phrase: their words are read once.
    unrestricted = (
        said if _NOT_NEGATING.search(text) is None else words(_NOT_NEGATING.sub(" ", text))
    )
    for word in unrestricted:
        if word in NEGATING_OR_RETIRING or word.endswith(("n't", "n\u2019t")):
            negations.add(word)
    if "no longer" in lowered:
        negations.add("no longer")
    return Clause(frozenset(lemmas), frozenset(negations), text)


# A history's texts share most of their sentences (a summary restates what it replaces, the
# next round's input holds the last round's output), and long texts are not kept whole
# (``_READ``): each sentence is split and read once while it is kept here.
@lru_cache(maxsize=16384)
def _clauses_of(sentence: str) -> tuple[Clause, ...]:
    """The clauses of one stripped sentence (clauses are frozen: shared by every reading)."""
    # An aside in brackets is a clause of its own ("3.12 (replaces 3.11)"); the words around
    # it are one clause still ("Never (ever) push to main").
    asides = _ASIDE.findall(sentence)
    main = _ASIDE.sub(" ", sentence)
    parts = [*_CLAUSE.split(main), *asides]
    return tuple(_clause(part) for part in parts if part.strip())


# A new text (a summary) is mostly sentences of texts read before (the summary it replaces, the
# messages it summarises): each sentence, with the union of its clauses' lemmas, is made once
# while kept.
@lru_cache(maxsize=16384)
def _sentence(stripped: str, wiring: bool = False) -> Sentence | None:
    """One stripped sentence read as message 0; None when it holds no clause."""
    clauses = _clauses_of(stripped)
    return Sentence(stripped, clauses, 0, wiring=wiring) if clauses else None


def _in(read: Sentence, message: int) -> Sentence:
    return Sentence(read.text, read.clauses, message, read.lemmas, read.wiring)


# What parts a message's text from its wiring, and each piece of its wiring from the next, in
# a message's searchable text (``laws.messages.reading``); never within a text.
WIRING = "\x00"


def sentences(text: str, message: int = 0) -> Iterator[Sentence]:
    """The sentences of ``text`` in order, each with its clauses: its prose, then each piece
    of its wiring (after a NUL) as one sentence of its own, marked as wiring."""
    prose, *wired = text.split(WIRING)
    pieces = [(raw, False) for raw in _SENTENCE.split(prose)] + [(raw, True) for raw in wired]
    for raw, wiring in pieces:
        stripped = raw.strip(" \t*-#>")
        if not stripped:
            continue
        read = _sentence(stripped, wiring)
        if read is not None:
            yield read if message == 0 else _in(read, message)


@dataclass(frozen=True)
class _Reading:
    """The sentences of one text (read as message 0), every lemma they hold, and which of them
    hold each lemma a lookup asked for."""

    sentences: tuple[Sentence, ...]
    lemmas: frozenset[str]
    # Filled as lookups ask, with what a reading of every lemma at once would hold (the
    # sentences in order): most of a text's lemmas are never asked for. At most one entry per
    # lemma of ``lemmas``.
    by_lemma: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def holding(self, lemma: str) -> tuple[int, ...]:
        """The numbers of the sentences that hold ``lemma``, in order."""
        if lemma not in self.lemmas:
            return ()
        found = self.by_lemma.get(lemma)
        if found is None:
            found = tuple(n for n, read in enumerate(self.sentences) if lemma in read.lemmas)
            self.by_lemma[lemma] = found
        return found


def _reading(text: str) -> _Reading:
    found = tuple(sentences(text))
    return _Reading(found, frozenset().union(*(sentence.lemmas for sentence in found)))


# The readings of texts read lately, by text: a history's kept messages are read again at every
# round, by the laws and by the fidelity measure. Bounded by entries; long texts are not kept.
_READ: dict[str, _Reading] = {}
_READ_KEPT = 8192
# The longest text any reading of it is kept for (here and by the laws that read texts again):
# a pasted log is read each time, so that a guard in a long-lived agent holds a bounded memory.
LONGEST_KEPT = 20_000


_P = ParamSpec("_P")
_R = TypeVar("_R", covariant=True)


class KeptWhileShort(Protocol[_P, _R]):
    """A reading of texts whose answers are kept while the text is short (``kept_while_short``)."""

    def __call__(self, text: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        """The answer for ``text``, from what was kept when it is short enough to keep."""
        ...

    def cache_clear(self) -> None:
        """Forget every kept answer."""
        ...

    def kept(self) -> int:
        """How many answers are kept."""
        ...


def kept_while_short(
    read: Callable[Concatenate[str, _P], _R],
) -> KeptWhileShort[_P, _R]:
    """``read`` (of a text, and hashable arguments), its answers kept for the 4,096 texts read
    last that are at most ``LONGEST_KEPT`` long: a history's texts are read again at every round,
    and a longer one (a pasted log) is read each time, so that the memory kept stays bounded."""
    kept = lru_cache(maxsize=4096)(read)

    @wraps(read)
    def reading(text: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if len(text) > LONGEST_KEPT:
            return read(text, *args, **kwargs)
        return kept(text, *args, **kwargs)  # type: ignore[arg-type]

    setattr(reading, "cache_clear", kept.cache_clear)  # noqa: B010 - the wrapper's own handle
    setattr(reading, "kept", lambda: kept.cache_info().currsize)  # noqa: B010
    return reading  # type: ignore[return-value]


def _read_text(text: str) -> _Reading:
    known = _READ.get(text)
    if known is not None:
        return known
    found = _reading(text)
    if len(text) <= LONGEST_KEPT:
        if len(_READ) >= _READ_KEPT:
            _READ.clear()
        _READ[text] = found
    return found


def _sentences_of(text: str) -> tuple[Sentence, ...]:
    return _read_text(text).sentences


class SentenceIndex:
    """The sentences of some texts, numbered in order, looked up by the lemmas they hold.

    Each text's reading is kept (``_READ``) and only the sentences a lookup asks for are
    numbered into this index: a round's output is mostly texts read at earlier rounds, and a
    ruling looks at a few of its sentences.
    """

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._readings = [_read_text(text) for text in texts]
        # The number of this index's first sentence of each text.
        self._starts: list[int] = []
        total = 0
        for read in self._readings:
            self._starts.append(total)
            total += len(read.sentences)
        self._count = total
        self._numbered: dict[int, Sentence] = {}
        self._lemmas: frozenset[str] | None = None
        self._lowered: str | None = None

    def __len__(self) -> int:
        return self._count

    def sentence(self, number: int) -> Sentence:
        """The sentence of that number, with the message (text) it was read in."""
        known = self._numbered.get(number)
        if known is not None:
            return known
        if not 0 <= number < self._count:
            raise IndexError(number)
        message = bisect_right(self._starts, number) - 1
        # Texts that hold no sentence share their start with the next: the last of them holds it.
        read = self._readings[message].sentences[number - self._starts[message]]
        found = _in(read, message)
        self._numbered[number] = found
        return found

    @property
    def sentences(self) -> list[Sentence]:
        """Every sentence, in order."""
        return [self.sentence(number) for number in range(self._count)]

    def holding(self, keys: frozenset[str]) -> dict[int, int]:
        """Each sentence holding at least one of ``keys``, with how many of them it holds."""
        counts: dict[int, int] = defaultdict(int)
        for key in keys:
            for start, read in zip(self._starts, self._readings, strict=True):
                if key in read.lemmas:
                    for number in read.holding(key):
                        counts[start + number] += 1
        return counts

    def __contains__(self, fact: str) -> bool:
        return any(fact in text for text in self.texts)

    @property
    def lemmas(self) -> frozenset[str]:
        """Every lemma any of the texts holds."""
        if self._lemmas is None:
            self._lemmas = frozenset().union(*(read.lemmas for read in self._readings))
        return self._lemmas

    @property
    def lowered(self) -> str:
        """The texts joined, lower-cased (for a value or a name written otherwise)."""
        if self._lowered is None:
            self._lowered = "\n".join(self.texts).lower()
        return self._lowered

    def following(self, number: int) -> Sentence | None:
        """The sentence after ``number`` when it is in the same text; None otherwise."""
        if number + 1 >= self._count:
            return None
        after = self.sentence(number + 1)
        return after if after.message == self.sentence(number).message else None


__all__ = [
    "HEDGES",
    "NEGATIONS",
    "RESTRICTIONS",
    "RETIRING",
    "STRONG",
    "Clause",
    "Sentence",
    "SentenceIndex",
    "lemma",
    "load_lexicon",
    "sentences",
    "shape",
    "value_like",
    "words",
]
