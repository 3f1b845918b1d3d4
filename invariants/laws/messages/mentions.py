"""Where the output mentions each constraint, and whether that mention asserts it.

A line asserts the constraint it names first and reads the ones named after it as the values
they replace ("- [c3] Use 3.12 (replaces [c1] Use 3.11)"); read by tokens, a constraint is
found by the tokens that tell it from the others, its negations read as one. This is how
``constraints_preserved`` and the fidelity measure find a superseded constraint asserted anew
(``reassertions``). Pure, linear in the length of the texts.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import accumulate

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.laws.messages.reading import FactLookup, Messages
from compactcheck.invariants.messages import content_text
from compactcheck.invariants.rulings import retired_on
from compactcheck.invariants.sentences import kept_while_short
from compactcheck.invariants.tokens import discriminating, position


@dataclass(frozen=True)
class Mention:
    """The last line of a message list that mentions a constraint, and how it reads there."""

    index: int
    current: bool


def _holders(whole: str, ends: Sequence[int], texts: Sequence[str]) -> dict[int, list[str]]:
    """Which parts of ``whole`` may hold which of ``texts``; part k ends just before ``ends[k]``.

    A part that holds a text lists it (as often as ``texts`` does, in its order); a part that
    lists one may still not hold it (an occurrence across the end of a part). Each text is
    searched for once per part it occurs in, so parts that hold none cost nothing at all.
    """
    found: dict[int, list[str]] = {}
    for text in texts:
        at = whole.find(text)
        while at >= 0:
            part = bisect_right(ends, at)
            if part == len(ends):
                # Only the empty text is found at the very end, after the last part.
                break
            found.setdefault(part, []).append(text)
            at = whole.find(text, ends[part])
    return found


def constraint_mentions(
    messages: Messages, texts: Sequence[str], wanted: Collection[str] | None = None
) -> dict[str, Mention]:
    """How each constraint text reads at its last mention.

    A line asserts the constraint whose text comes first on it; a constraint named later on the
    same line is read as the value it replaces ("- [c3] Use 3.12 (replaces [c1] Use 3.11)").
    ``wanted`` asks for some of ``texts`` only: every text still ranks on a line, but only the
    lines that mention a wanted one are read (the others cannot change its reading).
    """
    last: dict[str, Mention] = {}
    searched = texts if wanted is None else [text for text in texts if text in wanted]
    if not searched or not messages:
        return last
    # Most messages and most lines mention no constraint: one search of the whole list per
    # constraint finds the few messages, then the few lines, that need reading line by line.
    wholes = [content_text(message.content) for message in messages]
    message_ends = list(accumulate(len(whole) + 1 for whole in wholes))
    held = _holders("\x00".join(wholes), message_ends, searched)
    for index in sorted(held):
        whole = wholes[index]
        line_ends = list(accumulate(map(len, whole.splitlines(keepends=True))))
        on_lines = _holders(whole, line_ends, held[index])
        lines = whole.splitlines()
        for number in sorted(on_lines):
            line = lines[number]
            hits = sorted((position, text) for text in texts if (position := line.find(text)) >= 0)
            for rank, (_, text) in enumerate(hits):
                if wanted is None or text in wanted:
                    last[text] = Mention(index, rank == 0)
    return last


# The words that negate, read as one ("Never push to main" restated as "Don't ever push to
# main" in a replacement note is the same mention); "no longer" retires and stays as it is.
_NEGATING = re.compile(
    r"\b(?:never|not|nothing|none|without|cannot|[a-z]+n['\u2019]t|no(?!\s+longer\b))\b",
    re.IGNORECASE,
)
_NEGATING_TOKENS = frozenset({"never", "not", "no", "nothing", "none", "without"})
# What every negating word holds ("no" in not, nothing, none, cannot; "never"; "without"; the
# "n't" of a contraction), sought first: most texts hold none, and this search, which skips to
# an "n" or a "w", costs a tenth of the rewriting's.
_MAY_NEGATE = re.compile(r"[nw](?:(?<=n)o|(?<=n)ever|(?<=w)ithout|(?<=n)['\u2019]t)", re.IGNORECASE)


_NO = re.compile("no", re.IGNORECASE)


def _polar(text: str) -> str:
    """``text`` with every negating word written "not" (line breaks unchanged)."""
    if _MAY_NEGATE.search(text) is None:
        return text
    lines = text.split("\n")
    # A word is never read across a line break, but a "no" ending a line is read with the next
    # line's opening ("no\nlonger" retires): a text with one is rewritten whole.
    if len(lines) == 1 or any(_NO.fullmatch(line.rstrip()[-2:]) for line in lines):
        return _NEGATING.sub("not", text)
    return "\n".join([_polar_line(line) for line in lines])


# A new text (a summary) is mostly lines of texts read before: each line is rewritten once
# while kept. As many lines as texts are kept, so that the memory they may hold is the kept
# texts' at most.
@kept_while_short
def _polar_line(line: str) -> str:
    if _MAY_NEGATE.search(line) is None:
        return line
    return _NEGATING.sub("not", line)


# A history's messages are read again at every round (the kept tail, the last round's output):
# each distinct text is rewritten once while kept.
@kept_while_short
def _polar_lowered(text: str) -> tuple[str, str]:
    """``_polar`` of ``text``, and that lower-cased."""
    polar = _polar(text)
    return polar, polar.lower()


def _found_by(key: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens a mention is found by, its negation words read as one ("not")."""
    return tuple(dict.fromkeys("not" if token in _NEGATING_TOKENS else token for token in key))


def token_mentions(
    messages: Messages, texts: Sequence[str], wanted: Collection[str] | None = None
) -> dict[str, Mention]:
    """How each constraint reads at its last mention, each told from the others by its tokens.

    The reading of ``constraint_mentions`` with a constraint found by the tokens that tell it
    from the others ("3.11" for "Use Python 3.11" beside "Use Python 3.12"), wherever a summary
    put them on a line: the constraint mentioned first on a line is asserted, the later ones are
    read as the values they replace. ``wanted`` asks for some of ``texts`` only, as there.
    """
    last: dict[str, Mention] = {}
    probes = [
        (text, key, key[0].lower())
        for text in texts
        if (key := _found_by(discriminating(text, [other for other in texts if other != text])))
    ]
    searched = probes if wanted is None else [probe for probe in probes if probe[0] in wanted]
    if not searched:
        return last
    # Only the lines holding a searched constraint's first token (in any case) are read: they
    # are found by one search of all the messages per constraint, not by walking messages and
    # lines. On such a line every constraint whose first token it holds is ranked.
    wholes = [content_text(message.content) for message in messages]
    # Found on the text with its negations read as one; each line is judged as it was written.
    rewritten = [_polar_lowered(whole) for whole in wholes]
    polars = [polar for polar, _ in rewritten]
    lows = [low for _, low in rewritten]
    joined = "\x00".join(lows)
    ends = list(accumulate(len(low) + 1 for low in lows))
    line_starts: dict[int, list[int]] = {}
    read: set[tuple[int, int]] = set()
    for _, _, first in searched:
        at = joined.find(first)
        while at >= 0:
            index = bisect_right(ends, at)
            opening = ends[index] - len(lows[index]) - 1
            starts = line_starts.get(index)
            if starts is None:
                lines = lows[index].splitlines(keepends=True)
                starts = line_starts[index] = [0, *accumulate(map(len, lines))]
            number = bisect_right(starts, at - opening) - 1
            read.add((index, number))
            at = joined.find(first, opening + starts[number + 1])
    split: dict[int, tuple[list[str], list[str], list[str]]] = {}
    for index, number in sorted(read):
        if index not in split:
            split[index] = (
                wholes[index].splitlines(),
                polars[index].splitlines(),
                lows[index].splitlines(),
            )
        lines, polar_lines, lowered = split[index]
        line, polar, low = lines[number], polar_lines[number], lowered[number]
        hits = sorted(
            (found, text)
            for text, key, first in probes
            if first in low and (found := position(key, polar)) is not None
        )
        # A constraint the line names only to retire it ("Python 3.11 no longer applies: ...")
        # is not asserted, wherever it stands; the first of the others is.
        named = [text for _, text in hits]
        retired = {
            text
            for text in named
            if len(named) > 1 and retired_on(text, line, [o for o in named if o != text])
        }
        asserted = [text for _, text in hits if text not in retired]
        for _, text in hits:
            if wanted is None or text in wanted:
                last[text] = Mention(index, bool(asserted) and asserted[0] == text)
    return last


@dataclass(frozen=True)
class Reassertions:
    """The superseded constraints an input still held, and those its output asserts anew."""

    stale: tuple[str, ...]
    # Each superseded constraint the output's last mention asserts as current though the
    # input's did not: its text, that mention, and the input's last mention of it (or None).
    asserted: tuple[tuple[str, Mention, Mention | None], ...]


# The readings of the last few compactions: the law and the fidelity measure of one compaction
# read the same pair of lists with the same facts.
_READ: list[tuple[Messages, Messages, Facts, Reassertions]] = []


def reassertions(before: Messages, after: Messages, facts: Facts) -> Reassertions:
    """Which superseded constraints ``after`` reasserts, read as ``constraints_preserved`` reads.

    Every constraint the input holds is read together (each told from the others by its tokens,
    unless the reading is verbatim); the result is reused for the very same tuples and facts.
    """
    for held_before, held_after, held_facts, found in _READ:
        if held_before is before and held_after is after and held_facts is facts:
            return found
    held = FactLookup.of(before, facts.reading)
    current = [text for text in facts.constraints if held.holds(text)]
    stale = tuple(t for t in dict.fromkeys(facts.superseded_constraints) if held.holds(t))
    mentions = token_mentions if facts.reading == "tokens" else constraint_mentions
    read_after = mentions(after, [*current, *stale], set(stale)) if stale else {}
    # Only a superseded constraint the output asserts can be reasserted: the input, usually far
    # the larger list, is read only when there is one, and only on the lines mentioning one.
    suspects = [text for text in stale if (now := read_after.get(text)) and now.current]
    read_before = mentions(before, [*current, *stale], set(suspects)) if suspects else {}
    asserted = []
    for text in suspects:
        now, then = read_after[text], read_before.get(text)
        if not (then is not None and then.current):
            asserted.append((text, now, then))
    found = Reassertions(stale, tuple(asserted))
    if type(before) is tuple and type(after) is tuple:
        _READ.insert(0, (before, after, facts, found))
        del _READ[4:]
    return found


__all__ = [
    "Mention",
    "Reassertions",
    "constraint_mentions",
    "reassertions",
    "token_mentions",
]
