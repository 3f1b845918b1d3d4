"""How sure a ruling is: the mechanical evidence it rests on, or the reason it has none.

A lexical reading cannot understand a sentence; it can only check what it can see. So a ruling
is ``certain`` only where the evidence is mechanical, and ``unsure`` (with the reason) wherever
the reading would have to guess:

- a value or a name of the fact (a number, version, amount, id, path or proper name) that
  appears nowhere in the output, written in no near form either ("3.11" gone, "Postgres" for
  "PostgreSQL" is near): the fact is certainly not kept (``marks_of``, ``presence``);
- one clause that holds every value, name and content word of the fact and nothing the reading
  does not know, with the fact's negation (a faithful restatement) or with it toggled (a
  contradiction); a fronted object taken up by a pronoun ("The public API: do not touch it") is
  read as one clause with it (``statement``);
- a superseded value restated in such a clause with no replacement note in it or beside it
  (stale), or with one (retired), or absent from the output (retired).

Every other word a clause holds is sorted by closed lists (``compactcheck.invariants.lexicon``):
grammar and the frame rules are stated in are neutral; a hedge, a condition, a lapse ("we used
to"), a permission, a bound or a restriction must agree with the fact's; any other word makes
the statement unsure. Pure, no model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from compactcheck.invariants.clause_reading import (
    NEUTRAL,
    ClauseReading,
    FactShape,
    Tagged,
    effective_bound,
    holds_all,
    own_word,
    read_clause,
    shape_of,
    tagged_words,
)
from compactcheck.invariants.lexicon import (
    CONDITION_WORDS,
    FUNCTION_WORDS,
    HEDGE_WORDS,
    HEDGES,
    LAPSE_WORDS,
    PRONOUNS,
    negating,
    value_like,
)
from compactcheck.invariants.marks import marks_of
from compactcheck.invariants.sentences import Clause, Sentence

Certainty = Literal["certain", "unsure"]
CERTAINTIES: tuple[Certainty, ...] = ("certain", "unsure")
Says = Literal["same", "opposite", "noted"]

# Words of a note that lift the rule beside it ("(no longer applies)", "that rule was lifted");
# "replaces" and "instead" beside a rule say it is the new one, so they lift nothing.
_LIFTING = LAPSE_WORDS - {
    "instead", "rather", "replace", "replaces", "replacing", "supersede", "supersedes",
    "superseding",
}  # fmt: skip
_REPLACING = frozenset(
    {"instead", "rather", "place", "replaces", "replacing", "replaced", "supersedes", "superseding"}
)
_BARE = NEUTRAL | LAPSE_WORDS | frozenset({"no", "not", "earlier", "previous", "old", "one"})
# A clause that opens by retiring what follows it ("in place of the earlier rule: ...").
_OPENER = re.compile(
    r"^\W*(?:instead\s+of|rather\s+than|in\s+place\s+of|replacing|superseding)\b", re.IGNORECASE
)


# Phrases that say a rule goes on as it was ("as before", "as they used to", "as agreed"): read
# as nothing, so that their past tense is not taken for a lapse or a note retiring the rule.
_CONTINUING = re.compile(
    r"\b(?:(?:the\s+)?same\s+)?as\s+(?:(?:it|they|we|you|this|that)\s+)?(?:used\s+to(?:\s+be)?"
    r"|did|do|does|was|were|always|ever|usual|before|already|agreed|planned|discussed|decided)\b"
    # Phrases that make a rule absolute, never narrower ("without exception").
    r"|\b(?:without\s+(?:any\s+)?exceptions?|with\s+no\s+exceptions?|no\s+exceptions?"
    r"|at\s+all\s+times)\b",
    re.IGNORECASE,
)
_QUOTES = "\"'\u201c\u2018"
# What a clause may say of a rule it quotes and still only frame it ("The rule reads: '...'").
_QUOTING = NEUTRAL | frozenset(
    "reads read says say states state quote quoted verbatim wording literally exact".split()  # noqa: SIM905
)


def _tagged(text: str) -> Tagged:
    """The words of a clause with their lemmas, a phrase of continuance left out."""
    return tagged_words(_CONTINUING.sub(" ", text))


@dataclass(frozen=True)
class Statement:
    """How one sentence states a fact, read mechanically.

    ``says`` is "same" (the fact, faithfully), "opposite" (its negation toggled), "noted" (a
    note in or beside its clause lifts or retires it: "no longer", "in place of the earlier
    rule"), or None when the reading cannot tell; ``noted`` is that note, "" when none;
    ``reason`` says why.
    """

    says: Says | None
    noted: str
    reason: str
    clause: str


def _bare(tagged: Tagged) -> bool:
    """Whether a clause holds nothing of its own: grammar, frame, and note words."""
    return all(word in _BARE or negating(word) for word, _ in tagged)


def _note_of(clause: Clause, tagged: Tagged) -> str:
    """The lifting note a bare clause is ("that no longer applies"), or ""."""
    if _OPENER.match(clause.text) or not _bare(tagged):
        return ""
    lifting = [w for w, _ in tagged if w in _LIFTING] or (
        ["no longer"] if "no longer" in clause.lowered else []
    )
    return clause.text.strip() if lifting else ""


def _qualifier(clause: Clause, tagged: Tagged, shape: FactShape) -> str:
    """The hedge, condition or lapse a clause holding nothing else is ("Generally"), or ""."""
    flagged = [
        word
        for word, _ in tagged
        if word in HEDGE_WORDS | CONDITION_WORDS | LAPSE_WORDS
        and word not in shape.keys.own
        # "(replaces [c5])" beside a rule says it is the new one: it qualifies nothing.
        and word not in _REPLACING
    ]
    lowered = f" {clause.lowered} "
    phrases = [hedge for hedge in HEDGES if f" {hedge} " in lowered and hedge not in shape.hedges]
    if not (flagged or phrases):
        return ""
    plain = NEUTRAL | HEDGE_WORDS | CONDITION_WORDS | LAPSE_WORDS
    if all(word in plain or negating(word) for word, _ in tagged) or phrases:
        return (phrases or flagged)[0]
    return ""


def _carrying(
    shape: FactShape, clauses: Sequence[tuple[Clause, Tagged]]
) -> list[tuple[int, Tagged, str]]:
    """The clauses that hold the whole fact: (where, their words, a fronted object or "")."""
    found = [(at, tagged, "") for at, (_, tagged) in enumerate(clauses) if holds_all(shape, tagged)]
    if found:
        return found
    for at in range(len(clauses) - 1):
        (front, ahead), (_, rest) = clauses[at], clauses[at + 1]
        if not ahead or not all(
            own_word(w, lemma, shape.keys) or w in FUNCTION_WORDS for w, lemma in ahead
        ):
            continue
        if any(negating(w) for w, _ in ahead):
            continue
        # A topic, then what is said of it ("Dev server port: 8080", "The public API: do not
        # touch it"): its pronoun, if it has one, stands for the topic.
        pronoun = next((n for n, (w, _) in enumerate(rest) if w in PRONOUNS), None)
        taken = rest if pronoun is None else (*rest[:pronoun], *rest[pronoun + 1 :])
        joined = (*ahead, *taken)
        if holds_all(shape, joined):
            found.append((at + 1, joined, front.text.strip()))
    return found


def statement(fact: str, sentence: Sentence, following: Sentence | None = None) -> Statement | None:
    """How ``sentence`` states ``fact``; None when no clause of it holds the whole fact."""
    shape = shape_of(fact)
    clauses = [(clause, _tagged(clause.text)) for clause in sentence.clauses]
    carrying = _carrying(shape, clauses)
    if not carrying:
        return None
    read = [
        _judged(shape, at, tagged, fronted, clauses, sentence, following)
        for at, tagged, fronted in carrying
    ]
    says = {found.says for found in read}
    if len(says) > 1:
        return Statement(
            None, "", f"its clauses say it both ways: {sentence.text!r}", sentence.text
        )
    return read[0]


def noted_mention(fact: str, sentence: Sentence) -> Statement | None:
    """A clause that names every value and name of ``fact`` with a note that retires it in the
    same clause ("(was $500)", "Python 3.11 is superseded by 3.12"); None when there is none."""
    marks = marks_of(fact)
    # What a note retires is the fact's value ("instead of 3.11"), else its name.
    named = {mark for mark in marks if value_like(mark)} or set(marks)
    if not named:
        return None
    for clause in sentence.clauses:
        tagged = _tagged(clause.text)
        lemmas = {lemma for _, lemma in tagged}
        if not named <= lemmas:
            continue
        words_ = {word for word, _ in tagged}
        lifting = sorted(words_ & _LIFTING)
        # "... replaces Use Python 3.11", "instead of 3.11": a replacing word before the value
        # retires what follows it.
        first = min(n for n, (_, lemma) in enumerate(tagged) if lemma in named)
        lifting += [w for w, _ in tagged[:first] if w in _REPLACING] or (
            ["no longer"] if "no longer" in clause.lowered else []
        )
        if "retired" in clause.negations or lifting:
            note = ", ".join(lifting) or clause.text.strip()
            text = clause.text.strip()
            return Statement("noted", note, f"{text!r} names it with a note that retires it", text)
    return None


def _judged(
    shape: FactShape,
    at: int,
    tagged: Tagged,
    fronted: str,
    clauses: Sequence[tuple[Clause, Tagged]],
    sentence: Sentence,
    following: Sentence | None,
) -> Statement:
    clause = clauses[at][0]
    text = f"{fronted}: {clause.text.strip()}" if fronted else clause.text.strip()
    read = read_clause(shape, tagged, text)
    noted = ""
    lifting = [w for w in read.flags.get("lapse", []) if w in _LIFTING or w == "no longer"]
    if lifting:
        noted = ", ".join(lifting)
    elif "retired" in clause.negations:
        noted = clause.text.strip()
    before = clauses[at - 1] if at > 0 and not fronted else clauses[at - 2] if at > 1 else None
    if before is not None:
        opener = _OPENER.match(before[0].text)
        if opener is not None and _bare(_tagged(before[0].text[opener.end() :])):
            noted = before[0].text.strip()
    later = clauses[at + 1 :] if at + 1 < len(clauses) else []
    if not later and following is not None:
        later = [(c, _tagged(c.text)) for c in following.clauses[:1]]
    if later:
        note = _note_of(*later[0])
        noted = noted or note
    taken_up = [
        c.text.strip()
        for c, words_ in later
        if any(w in PRONOUNS for w, _ in words_) and not _note_of(c, words_)
    ]
    if sentence.text.rstrip().endswith("?"):
        return Statement(None, noted, "it is asked, not stated", text)
    if clause.text.strip()[:1] in _QUOTES:
        # A quoted rule is reported: what the rest of the sentence says of it may end or
        # narrow it ("'never quote prices' applied to the old widget only").
        more = [
            c.text.strip()
            for n, (c, words_) in enumerate(clauses)
            if n != at and not all(w in _QUOTING or own_word(w, m, shape.keys) for w, m in words_)
        ]
        if more:
            return Statement(None, noted, f"it is quoted, and {more[0]!r} says more of it", text)
    # A clause of nothing but a qualifier beside it ("Generally, don't ...", "..., where
    # practical") qualifies it as if it were inside it.
    beside = [c for c in (before, later[0] if later else None) if c is not None]
    for other, words_ in beside:
        qualifier = _qualifier(other, words_, shape)
        if qualifier:
            return Statement(None, noted, f"{qualifier!r} beside it may qualify it", text)
    if noted:
        if read.unknown:
            return Statement(
                None,
                noted,
                f"a note ({noted!r}) sits beside it, and the clause also says {_listed(read)}",
                text,
            )
        if taken_up:
            return Statement(
                None,
                noted,
                f"a note ({noted!r}) retires it, but {taken_up[0]!r} may take it up again",
                text,
            )
        return Statement(
            "noted", noted, f"a note in or beside its clause lifts it: {noted!r}", text
        )
    return _polarity(shape, read, text)


def _polarity(shape: FactShape, read: ClauseReading, text: str) -> Statement:
    """The statement of a clause with no note: same, opposite, or why it cannot tell."""
    quoted = repr(text)
    for name, why in (
        ("hedge", "may soften it"),
        ("condition", "may limit it to a case or a time"),
        ("lapse", "may put it in the past"),
    ):
        if read.flags.get(name):
            return Statement(None, "", f"{read.flags[name][0]!r} in {quoted} {why}", text)
    if read.unknown:
        return Statement(
            None,
            "",
            f"{quoted} also says {_listed(read)}, which the reading does not know",
            text,
        )
    if read.restricted != shape.restricted:
        why = "drops the fact's restriction" if shape.restricted else "adds a restriction"
        return Statement(None, "", f"{quoted} {why}", text)
    # "Only PostgreSQL may be used" permits nothing else: a permission that restricts as the
    # fact does is its requirement.
    permits = bool(read.flags.get("permission")) and not (read.restricted and shape.restricted)
    if shape.bounds or read.bounds:
        fact_bound = effective_bound(shape.bounds, shape.negations)
        said = effective_bound(read.bounds, read.negations)
        if fact_bound is None or said is None or fact_bound != said or permits:
            return Statement(None, "", f"{quoted} bounds its value otherwise than the fact", text)
        return Statement("same", "", f"{quoted} holds every word of it, bound the same way", text)
    if read.negations == shape.negations:
        if permits and not read.negations:
            return Statement(
                None,
                "",
                f"{read.flags['permission'][0]!r} in {quoted} permits where the fact requires",
                text,
            )
        return Statement("same", "", f"{quoted} holds every word of it, with its polarity", text)
    if {read.negations, shape.negations} == {0, 1}:
        toggled = "drops" if shape.negations else "adds"
        return Statement(
            "opposite", "", f"{quoted} holds every word of it and {toggled} its negation", text
        )
    return Statement(
        None, "", f"{quoted} negates it {read.negations} times, the fact {shape.negations}", text
    )


def _listed(read: ClauseReading) -> str:
    return ", ".join(map(repr, read.unknown))


__all__ = ["CERTAINTIES", "Certainty", "Says", "Statement", "noted_mention", "statement"]
