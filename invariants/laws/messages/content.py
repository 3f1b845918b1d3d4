"""The messages laws on what must still be said: the goal, the constraints, the facts, a user."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.reading import (
    FactLookup,
    Messages,
    label,
    searchable_text,
)
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.rulings import FactRuling, retired_on, rulings
from compactcheck.invariants.sentences import kept_while_short
from compactcheck.invariants.tokens import discriminating, position
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness


@invariant(
    "messages",
    "goal_preserved",
    "the first user message survives verbatim, or its text (its goal's distinctive tokens, unless "
    "the reading is verbatim) survives inside a summary",
)
def goal_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The first user message, which states the task, is not lost."""
    first = next(((index, m) for index, m in enumerate(before) if isinstance(m, UserMessage)), None)
    if first is None:
        return Finding("goal_preserved", False)
    index, message = first
    text = content_text(message.content)
    if any(text in content_text(kept.content) for kept in after):
        return Finding("goal_preserved", True)
    # Read by tokens, the goal is the planted one where the message states it (the rest of the
    # message is how the user put it), else the whole message.
    goal = facts.goal if facts.goal and facts.goal in text else text
    missing = FactLookup.of(after, facts.reading).missing(goal) if facts.reading == "tokens" else []
    if facts.reading == "tokens" and not missing:
        return Finding("goal_preserved", True)
    first_out = next((m for m in after if isinstance(m, UserMessage)), None)
    lost = f" (no output message holds {', '.join(map(repr, missing))})" if missing else ""
    violation = Violation(
        "goal_preserved",
        f"the first user message (input index {index}) does not survive: no output message is "
        f"it or contains its {'goal' if facts.reading == 'tokens' else 'text'}{lost}",
        witness(message),
        value_diff(text, content_text(first_out.content)) if first_out is not None else None,
    )
    return Finding("goal_preserved", True, (violation,))


def _lost(
    before: Messages, held: FactLookup, after: Messages, facts: Facts, texts: Iterable[str]
) -> Iterator[tuple[str, int | None, ChatMessage | None]]:
    """Each fact that the output no longer says, with the first input message saying it.

    ``held`` is the lookup of ``before`` the caller already built.
    """
    out = FactLookup.of(after, facts.reading)
    for text in texts:
        if not out.holds(text):
            at = held.holding(text)
            yield text, at, before[at] if at is not None else None


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


def _rewritten_without(
    system: SystemMessage, after: Messages, current: Sequence[str], facts: Facts
) -> list[str] | None:
    """What a system prompt rewritten in place lost from the output's system messages.

    A compactor may rewrite the system prompt to hold its summary (rolling-summary memories):
    what must survive is its constraints, read in the output's system messages as the law reads
    them anywhere; the constraints returned are those no output system message says. A prompt
    that states none of the run's current constraints must keep each of its lines there, read
    as facts are read (tokens, or word for word with verbatim), in any order. None when the
    output has no system message, or lost such a prompt's lines.
    """
    out_systems = [message for message in after if isinstance(message, SystemMessage)]
    if not out_systems:
        return None
    own = FactLookup.of((system,), facts.reading)
    stated = [text for text in current if own.holds(text)]
    kept = FactLookup.of(tuple(out_systems), facts.reading)
    if stated:
        return [text for text in stated if not kept.holds(text)]
    # Its lines are read as facts are (by their tokens, or word for word with --verbatim), so
    # that a prompt reworded line by line keeps them.
    lines = [line.strip() for line in content_text(system.content).splitlines() if line.strip()]
    return [] if lines and all(kept.holds(line) for line in lines) else None


@invariant(
    "messages",
    "constraints_preserved",
    "system messages survive as system messages (one rewritten to hold a summary keeps its "
    "constraints, or else its lines, in the output's system messages); current constraints stay, "
    "superseded ones are not reasserted",
)
def constraints_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The system prompt is not demoted, and the constraints read as they did."""
    found: list[Violation] = []
    out_system_texts = {
        content_text(message.content) for message in after if isinstance(message, SystemMessage)
    }
    systems = [(i, m) for i, m in enumerate(before) if isinstance(m, SystemMessage)]
    held = FactLookup.of(before, facts.reading)
    current = [text for text in facts.constraints if held.holds(text)]
    for index, system in systems:
        text = content_text(system.content)
        if text in out_system_texts:
            continue
        # Only a system message that did not survive as such pays for this scan.
        holder = next(
            ((j, m) for j, m in enumerate(after) if text in content_text(m.content)), None
        )
        if holder is not None and isinstance(holder[1], SystemMessage):
            continue
        lost = _rewritten_without(system, after, current, facts) if holder is None else None
        if lost is not None:
            # A constraint the output no longer says at all is reported once, as lost, below;
            # one it says elsewhere was demoted out of the system prompt.
            out = FactLookup.of(after, facts.reading)
            demoted = [text for text in lost if out.holds(text)]
            if demoted:
                found.append(
                    Violation(
                        "constraints_preserved",
                        f"the system message at input index {index} was rewritten without its "
                        f"constraint {demoted[0]!r}, which only a non-system message still says",
                        witness(system),
                    )
                )
            continue
        if holder is not None:
            j, kept = holder
            found.append(
                Violation(
                    "constraints_preserved",
                    f"the system message at input index {index} is not a system message in the "
                    f"output: its text was demoted into the {kept.role} message at output "
                    f"index {j}",
                    witness(system, kept),
                    value_diff({"role": "system"}, {"role": kept.role}),
                )
            )
        else:
            found.append(
                Violation(
                    "constraints_preserved",
                    f"the system message at input index {index} is missing from the output",
                    witness(system),
                )
            )
    if facts.reading == "tokens":
        found.extend(_misread(before, held, after, facts, current))
    else:
        for text, at, source in _lost(before, held, after, facts, current):
            found.append(
                Violation(
                    "constraints_preserved",
                    f"current constraint {text!r} (input index {at}) is missing from the output",
                    witness(source),
                )
            )
    read = reassertions(before, after, facts)
    stale = read.stale
    for text, now, then in read.asserted:
        replaced_at = f" (input index {then.index})" if then is not None else ""
        found.append(
            Violation(
                "constraints_preserved",
                f"superseded constraint {text!r} is asserted as current by the "
                f"{label(after[now.index])} at output index {now.index}, though the input had "
                f"replaced it{replaced_at}",
                witness(after[now.index], before[then.index] if then is not None else None),
            )
        )
    exercised = bool(systems or current or stale)
    return Finding("constraints_preserved", exercised, tuple(found))


def fact_rulings(before: Messages, after: Messages, facts: Facts) -> tuple[FactRuling, ...]:
    """The ruling on the goal and on each constraint the input held, read in the output.

    Read sentence by sentence (``compactcheck.invariants.rulings``); the goal and constraints
    the input never said are not ruled on, and the output's invented ones are.
    """
    for held_before, held_after, held_facts, made in _RULED:
        if held_before is before and held_after is after and held_facts is facts:
            return made
    held = FactLookup.of(before, facts.reading)
    current = [text for text in facts.constraints if held.holds(text)]
    stale = [text for text in facts.superseded_constraints if held.holds(text)]
    goal = facts.goal if facts.goal and held.holds(facts.goal) else None
    made = rulings(
        [searchable_text(m) for m in before],
        [searchable_text(m) for m in after],
        goal,
        current,
        stale,
    )
    if any(r.ruling == "stale" for r in made):
        # A superseded value is stale where the law finds it reasserted; one the input's own
        # last mention still asserted (a kept system prompt listing it) is kept as it was.
        asserted = {text for text, _, _ in reassertions(before, after, facts).asserted}
        made = tuple(
            replace(r, ruling="kept") if r.ruling == "stale" and r.fact not in asserted else r
            for r in made
        )
    if type(before) is tuple and type(after) is tuple:
        _RULED.insert(0, (before, after, facts, made))
        del _RULED[4:]
    return made


# The rulings of the last few compactions: two laws and the fidelity measure of one compaction
# rule on the same pair of lists with the same facts.
_RULED: list[tuple[Messages, Messages, Facts, tuple[FactRuling, ...]]] = []


# What a ruling that fails ``constraints_preserved`` says of a current constraint.
_BROKEN = {
    "changed": "is changed in the output (a value or name differs)",
    "contradicted": "is contradicted in the output (its polarity flipped)",
}
BROKEN_RULINGS: frozenset[str] = frozenset(_BROKEN)
"""The rulings on which ``constraints_preserved`` fails a current constraint whose tokens are
all still there (the fidelity measure counts such a constraint as lost too)."""


def _misread(
    before: Messages, held: FactLookup, after: Messages, facts: Facts, current: Sequence[str]
) -> Iterator[Violation]:
    """The current constraints the output drops, changes or contradicts, read by sentence.

    A constraint whose tokens one output message still holds is not reported dropped: the
    sentence reading adds what a token reading misses (polarity, a changed value), never a
    loss a token reading would not see.
    """
    out = FactLookup.of(after, facts.reading)
    wanted = set(current)
    for ruling in fact_rulings(before, after, facts):
        if ruling.kind != "constraint" or ruling.fact not in wanted:
            continue
        text = ruling.fact
        at = held.holding(text)
        source = before[at] if at is not None else None
        if ruling.ruling == "dropped" and not out.holds(text):
            yield Violation(
                "constraints_preserved",
                f"current constraint {text!r} (input index {at}) is missing from the output",
                witness(source),
            )
        elif ruling.ruling in _BROKEN and ruling.message is not None:
            yield Violation(
                "constraints_preserved",
                f"current constraint {text!r} (input index {at}) {_BROKEN[ruling.ruling]}: "
                f"{ruling.sentence!r} (output index {ruling.message})",
                witness(source, after[ruling.message]),
            )


@invariant(
    "messages",
    "constraints_not_weakened",
    "a current constraint is not restated with its restriction relaxed ('only' dropped, "
    "'never' become 'avoid if possible'); read sentence by sentence, tokens reading only",
)
def constraints_not_weakened(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The rules keep their force: a prohibition stays a prohibition."""
    if facts.reading != "tokens" or not facts.constraints:
        return Finding("constraints_not_weakened", False)
    made = [r for r in fact_rulings(before, after, facts) if r.kind == "constraint"]
    found = [
        Violation(
            "constraints_not_weakened",
            f"current constraint {r.fact!r} is weakened in the output: {r.sentence!r} "
            f"(output index {r.message})",
            witness(after[r.message]),
        )
        for r in made
        if r.ruling == "weakened" and r.message is not None
    ]
    return Finding("constraints_not_weakened", bool(made), tuple(found))


@invariant(
    "messages",
    "no_invented_constraints",
    "the output states no constraint or goal (by label, 'Constraint: ...', or under a "
    "constraints heading) that neither the facts nor the input held",
)
def no_invented_constraints(before: Messages, after: Messages, facts: Facts) -> Finding:
    """A summary does not hand the agent a rule nobody gave."""
    if facts.reading != "tokens":
        return Finding("no_invented_constraints", False)
    made = [r for r in fact_rulings(before, after, facts) if r.ruling == "invented"]
    found = [
        Violation(
            "no_invented_constraints",
            f"the output states {r.fact!r} as a constraint or goal (output index {r.message}), "
            "which neither the facts nor the input held",
            witness(after[r.message]) if r.message is not None else witness(),
        )
        for r in made
    ]
    return Finding("no_invented_constraints", bool(after), tuple(found))


@invariant(
    "messages",
    "facts_preserved",
    "every must-keep identifier in the input appears verbatim in the output",
)
def facts_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Changed file paths, pending step ids and other must-keep identifiers survive."""
    held = FactLookup.of(before, facts.reading)
    present = [ident for ident in dict.fromkeys(facts.must_keep) if ident and held.holds(ident)]
    found = [
        Violation(
            "facts_preserved",
            f"must-keep identifier {ident!r} (first at input index {at}) appears nowhere "
            "in the output",
            witness(source),
        )
        for ident, at, source in _lost(before, held, after, facts, present)
    ]
    return Finding("facts_preserved", bool(present), tuple(found))


@invariant("messages", "non_empty", "a non-empty input compacts to a non-empty output")
def non_empty(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Compaction never returns nothing."""
    del facts
    if not before:
        return Finding("non_empty", False)
    if after:
        return Finding("non_empty", True)
    violation = Violation(
        "non_empty",
        f"the output is empty although the input had {len(before)} messages, the last a "
        f"{label(before[-1])} at index {len(before) - 1}",
        witness(before[-1]),
    )
    return Finding("non_empty", True, (violation,))


@invariant(
    "messages",
    "user_turn_present",
    "an input with a user message keeps at least one: Anthropic (Claude on Bedrock and Vertex "
    "too), Gemini, Bedrock's Converse and many OpenAI-compatible servers reject a history with "
    "no user turn (level 1 in the anthropic and gemini formats); OpenAI's own chat completions "
    "and Responses accept it, but the request is lost (level 2 there)",
)
def user_turn_present(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The model still sees something the user said."""
    del facts
    users = [index for index, message in enumerate(before) if isinstance(message, UserMessage)]
    if not users:
        return Finding("user_turn_present", False)
    if any(isinstance(message, UserMessage) for message in after):
        return Finding("user_turn_present", True)
    violation = Violation(
        "user_turn_present",
        f"no user message remains in the {len(after)} output messages; the input had "
        f"{len(users)}, the first at index {users[0]}",
        witness(before[users[0]]),
    )
    return Finding("user_turn_present", True, (violation,))


def _opening(messages: Messages) -> tuple[int, ChatMessage] | None:
    """The first message after the system prompt, with its index."""
    return next(((i, m) for i, m in enumerate(messages) if not isinstance(m, SystemMessage)), None)


@invariant(
    "messages",
    "user_turn_first",
    "an input that opens with a user turn (after the system prompt) still does: Gemini and "
    "Claude on Amazon Bedrock reject a history that opens with a model or assistant turn (level 1 "
    "in the gemini format); Anthropic's first-party API and OpenAI's accept it (level 2 there)",
)
def user_turn_first(before: Messages, after: Messages, facts: Facts) -> Finding:
    """What the provider sees first after the system prompt is still something the user said."""
    del facts
    given = _opening(before)
    if given is None or not isinstance(given[1], UserMessage):
        return Finding("user_turn_first", False)
    kept = _opening(after)
    # An empty answer is non_empty's to report; a tool result first is the pairing laws'.
    if kept is None or not isinstance(kept[1], AssistantMessage):
        return Finding("user_turn_first", kept is not None)
    at, first = kept
    violation = Violation(
        "user_turn_first",
        f"the output opens with an {label(first)} at index {at}, not a user turn; the input opened "
        f"with the user message at index {given[0]}",
        witness(first),
    )
    return Finding("user_turn_first", True, (violation,))
