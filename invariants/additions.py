"""What an output says that its input did not: the clauses that may state a rule nobody gave.

A summary can hand the agent a new rule without labelling it ("Card numbers are never stored,
and all payments go through Stripe."). The reading cannot tell a new rule from new context by
meaning, so it says "nothing new" only on mechanical evidence: a clause each of whose values,
names and content words the input holds (a restatement in the input's own words), or a clause
that narrates in the past tense with no word of a rule in it ("The user mentioned the tape
drive."). Every other clause that holds something new may state a rule the input lacks, and is
left for review with the reason. Pure, no model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from compactcheck.invariants.clause_reading import Tagged, auxiliary, tagged_words
from compactcheck.invariants.fact_keys import changed, derived, keys_of
from compactcheck.invariants.lexicon import (
    CONDITION_WORDS,
    FORCE_WORDS,
    FRAME_WORDS,
    FUNCTION_WORDS,
    HEDGE_WORDS,
    HEDGES,
    LAPSE_WORDS,
    LOWER_BOUND,
    NEGATIONS,
    PERMISSION_WORDS,
    RESTRICTIONS,
    UPPER_BOUND,
    lemma_of,
    negating,
)
from compactcheck.invariants.marks import marks_of, presence, spelled
from compactcheck.invariants.sentences import Sentence, SentenceIndex, sentences
from compactcheck.invariants.tokens import STOPWORDS

# Words that make a clause a rule, whatever its tense: force, restriction, bound, condition,
# permission, hedge, and the words rules are framed and decided in.
_RULE_WORDS = (
    FORCE_WORDS
    | RESTRICTIONS
    | UPPER_BOUND
    | LOWER_BOUND
    | CONDITION_WORDS
    | PERMISSION_WORDS
    | HEDGE_WORDS
    | frozenset(
        """rule rules constraint constraints requirement requirements policy guideline
        guidelines keep keeps stay stays remain remains ensure ensures sure agreed agree decided
        decide decision chose chosen settled every each no-one nobody""".split()  # noqa: SIM905
    )
)
# Past forms that narrate (an event, not a rule in force), and the auxiliaries after which a
# participle is passive in the present ("are stored"), which narrates nothing.
_PAST = frozenset(
    """was were had did went said met ran saw came took made found told thought wrote
    broke began""".split()  # noqa: SIM905
)
_PRESENT_AUXILIARIES = frozenset(
    """be is are am been being get gets stay stays remain remains keep keeps must should will
    shall can may""".split()  # noqa: SIM905
)
_HISTORY_WORDS = frozenset(
    {"tool", "tools", "result", "results", "call", "calls", "message", "messages", "turn"}
    | {"turns", "earlier", "older", "replaced", "summarised", "summarized", "output"}
    | {"conversation", "history", "seen", "file", "files", "id", "ids"}
    | {"session", "sessions", "chat", "thread", "discussion"}
)
# Words that carry no content of their own: grammar and the frame a rule is written in.
# A word of the closed lists qualifies a rule but is no rule of its own ("Where possible").
_EMPTY = (
    STOPWORDS
    | FUNCTION_WORDS
    | FRAME_WORDS
    | _RULE_WORDS
    | LAPSE_WORDS
    | NEGATIONS
    | frozenset(word for hedge in HEDGES for word in hedge.split())
    # The words of a replacement note ("in place of the earlier rule").
    | frozenset({"place", "previous", "new", "now", "update", "updated", "replacement"})
    # The words a question or a relative clause opens with ("Summary of what we've done").
    | frozenset({"what", "which", "who", "whom", "whose", "how", "why"})
    | frozenset({"recap", "recaps", "overview", "rundown", "progress", "things"})
    # The words a summary names the history it replaces by ("tool result t3: ok", "Summary of
    # 57 earlier messages, replaced by this one"): about the history, never a rule.
    | _HISTORY_WORDS
)
# Phrases that date a summary against its history ("so far", "to date", "up to now"), and those
# a summary opens with to hand the history over ("Here's where things stand.", "Let me bring you
# up to speed.", "Picking up where we left off:"): about the summary, never a rule.
_HISTORY_PHRASES = re.compile(
    r"\b(?:so\s+far(?:,?\s+so\s+good)?|to\s+date|up\s+to\s+now|until\s+now"
    r"|where\s+(?:things|matters|we|i)\s+(?:stand|are|were|left\s+off)"
    r"|(?:bring|get|catch|getting|bringing)\s+(?:you|us|me|everyone)\s+up\s+to\s+speed"
    r"|(?:pick|picking|picks)\s+up(?:\s+from)?|catch(?:ing)?\s+up"
    r"|let\s+me|let's|here's|here\s+(?:is|are)|to\s+(?:recap|summari[sz]e)"
    r"|in\s+(?:short|summary|brief))\b",
    re.I,
)
# Nouns a summary names itself or its parts by ("Quick recap:", "Open items:", "Key points"):
# no rule of their own, and beside one the words that describe a summary carry none either
# ("quick", "next", "open"). Elsewhere those words keep their content ("Keep it brief.").
_RECAP_NOUNS = frozenset(
    """recap recaps overview rundown progress summary status update updates snapshot context
    background highlights points items takeaways steps state""".split()  # noqa: SIM905
)
_RECAP_WORDS = frozenset(
    """quick brief short concise full current latest below above following here next open key
    main last remaining outstanding pending done completed""".split()  # noqa: SIM905
)
# A count of the history's own units ("57 earlier messages"), which no input states.
_COUNTED = re.compile(
    r"(?<![\w.])(\d+)\s+(?:(?:earlier|older|previous|prior)\s+)?"
    r"(?:messages?|turns?|calls?|results?|steps?|rounds?)\b"
)


@dataclass(frozen=True)
class Addition:
    """An output clause that holds something its input did not, and why it may be a rule."""

    clause: str
    sentence: str
    message: int
    reason: str


def _narrates(tagged: Tagged) -> bool:
    """Whether a clause is told in the past tense (a form of "was", or a participle not after
    "is": "we stored", "we've done", never "are never stored")."""
    for at, (word, lemma) in enumerate(tagged):
        if word in _PAST:
            return True
        participle = (word.endswith("ed") and lemma != word) or word in _PARTICIPLES
        if participle and auxiliary(tagged, at) not in _PRESENT_AUXILIARIES:
            return True
    return False


# Irregular past participles, read as "-ed" ones are.
_PARTICIPLES = frozenset({"done", "gone", "seen", "taken", "given", "written", "shown"})


def _new_words(tagged: Tagged, held: frozenset[str]) -> list[str]:
    """The clause's content words the input holds in no form (its lemma, or one derived); beside
    a noun a summary names itself by, the words that describe a summary are none."""
    recap = any(word in _RECAP_NOUNS or lemma in _RECAP_NOUNS for word, lemma in tagged)
    found: list[str] = []
    for word, lemma in tagged:
        if word in _EMPTY or lemma in _EMPTY or negating(word) or lemma in held:
            continue
        if recap and (word in _RECAP_WORDS or word in _RECAP_NOUNS):
            continue
        if any(derived(lemma, other) for other in held):
            continue
        # A word the input holds with "un-" before it ("untouched" of "touch") is no new word.
        if word.startswith("un") and len(word) > 5 and lemma_of(word[2:]) in held:
            continue
        found.append(word)
    return found


def _held(mark: str, before: SentenceIndex) -> bool:
    """Whether the input holds ``mark``: as the output side reads it, or as one segment of a
    longer token ("24" of "docs/index.md:24", "c5" of "id=c5"), which a summary writes apart."""
    if presence(mark, before) != "absent":
        return True
    return _segment(mark, before)


def _segment(token: str, before: SentenceIndex) -> bool:
    """Whether ``token``, a path, number or id (never a plain word: "auth" of "auth.py" may be
    new), stands apart inside a longer token of the input."""
    if token.isalpha():
        return False
    return re.search(rf"(?<![\w.-]){re.escape(token.lower())}(?![\w-])", before.lowered) is not None


def _addition(text: str, before: SentenceIndex) -> str:
    """Why a clause may state a rule the input lacks, or "" when it surely states none."""
    counted = {match.group(1) for match in _COUNTED.finditer(text.lower())}
    gone = [m for m in marks_of(text) if m not in counted and not _held(m, before)]
    tagged = tagged_words(_HISTORY_PHRASES.sub(" ", text))
    new = [
        word
        for word in _new_words(tagged, before.lemmas)
        if word not in counted and not _segment(word, before)
    ]
    if not gone and not new:
        return ""
    rule = [w for w, lemma in tagged if w in _RULE_WORDS or lemma in _RULE_WORDS]
    # A negation in the past narrates too ("Bumping the timeout did not help.").
    if not rule and _narrates(tagged):
        return ""
    rule = rule or [w for w, _ in tagged if negating(w)]
    if gone:
        return f"{spelled(gone[0], text)!r} is not in the input"
    if rule:
        return f"{rule[0]!r} may make a rule of {new[0]!r}, which the input does not hold"
    return f"{new[0]!r} is not in the input, and the clause is not told in the past"


# A clause may list several things ("public API untouched, coverage above 90%, no new
# dependencies"): each piece is looked at alone, so that one restated does not hide one added.
_PIECE = re.compile(r",\s+|\s+(?:and|or)\s+", re.IGNORECASE)


def additions(after: str, message: int, before: SentenceIndex) -> Iterator[Addition]:
    """The pieces of one output text that may state a rule ``before`` lacks, in order."""
    for sentence in sentences(after, message):
        for clause in sentence.clauses:
            for piece in _PIECE.split(clause.text):
                why = _addition(piece, before) if piece.strip() else ""
                if why:
                    yield Addition(piece.strip(), sentence.text, message, why)


def said_otherwise(
    fact: str, index: SentenceIndex, kept: set[str], others: Sequence[str] = ()
) -> Sentence | None:
    """A sentence other than those that keep the fact whole that says it with a value of the
    same kind in place of its own (``changed``), or None; only facts with a value are read so.
    A sentence told in the past is a story of the run, and one naming a value of another fact
    (``others``: a rule it replaced, say) speaks of that fact, not this one said otherwise."""
    keys = keys_of(fact)
    if not keys.values:
        return None
    theirs = frozenset().union(*(keys_of(other).values for other in others)) - keys.values
    for number in sorted(index.holding(keys.all)):
        sentence = index.sentence(number)
        if sentence.text in kept or (keys.values | theirs) & sentence.lemmas:
            continue
        if changed(keys, sentence) and not _narrates(tagged_words(sentence.text)):
            return sentence
    return None


__all__ = ["Addition", "additions", "said_otherwise"]
