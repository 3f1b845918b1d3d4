"""The messages laws on the rules: the system prompt, the constraints, their force, new ones.

The constraints are read sentence by sentence (``compactcheck.invariants.rulings``), and a law
fails only on a ruling that is certain; a ruling the reading cannot settle is carried on the
finding as an item for review (``Review``), never a violation and never a silent pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.cause import copied, owed_to
from compactcheck.invariants.laws.messages.mentions import Mention, reassertions
from compactcheck.invariants.laws.messages.reading import (
    FactLookup,
    Messages,
    label,
    searchable_text,
)
from compactcheck.invariants.laws.messages.restated import restated_after_its_note
from compactcheck.invariants.messages import SystemMessage, content_text
from compactcheck.invariants.rulings import FactRuling, rulings
from compactcheck.invariants.verdict import Finding, Review, Violation, value_diff, witness


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


@dataclass(frozen=True)
class _Judged:
    """What a law makes of the rulings: violations (certain) and items for review (unsure)."""

    violations: list[Violation]
    review: list[Review]


def _review(law: str, ruling: FactRuling) -> Review:
    return Review(
        law, ruling.fact, ruling.kind, ruling.ruling, ruling.reason, ruling.sentence, ruling.message
    )


def _system_findings(
    before: Messages, after: Messages, facts: Facts, current: Sequence[str]
) -> Iterator[Violation]:
    """The system messages the output lost, demoted, or rewrote without their constraints."""
    out_system_texts = {
        content_text(message.content) for message in after if isinstance(message, SystemMessage)
    }
    for index, system in enumerate(before):
        if not isinstance(system, SystemMessage):
            continue
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
                yield Violation(
                    "constraints_preserved",
                    f"the system message at input index {index} was rewritten without its "
                    f"constraint {demoted[0]!r}, which only a non-system message still says",
                    witness(system),
                    kind="system rewritten",
                )
            continue
        if holder is not None:
            j, kept = holder
            yield Violation(
                "constraints_preserved",
                f"the system message at input index {index} is not a system message in the "
                f"output: its text was demoted into the {kept.role} message at output index {j}",
                witness(system, kept),
                value_diff({"role": "system"}, {"role": kept.role}),
                kind="system demoted",
            )
        else:
            yield Violation(
                "constraints_preserved",
                f"the system message at input index {index} is missing from the output",
                witness(system),
                kind="system missing",
            )


@invariant(
    "messages",
    "constraints_preserved",
    "system messages survive as system messages (one rewritten to hold a summary keeps its "
    "constraints, or else its lines, in the output's system messages); current constraints stay, "
    "superseded ones are not reasserted; read by tokens, only a certain ruling fails, an unsure "
    "one is left for review",
    ways=(
        "system missing",
        "system demoted",
        "system rewritten",
        "dropped",
        "changed",
        "contradicted",
        "superseded reasserted",
    ),
)
def constraints_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The system prompt is not demoted, and the constraints read as they did."""
    held = FactLookup.of(before, facts.reading)
    current = [text for text in facts.constraints if held.holds(text)]
    found = list(_system_findings(before, after, facts, current))
    review: list[Review] = []
    if facts.reading == "tokens":
        judged = _current(before, held, after, facts, current)
        found += judged.violations
        review += judged.review
    else:
        out = FactLookup.of(after, facts.reading)
        for text in current:
            if not out.holds(text):
                at = held.holding(text)
                found.append(
                    Violation(
                        "constraints_preserved",
                        f"current constraint {text!r} (input index {at}) is missing from the "
                        "output",
                        witness(before[at] if at is not None else None),
                        kind="dropped",
                    )
                )
    read = reassertions(before, after, facts)
    judged = _superseded(before, after, facts, read.asserted)
    found += judged.violations
    review += judged.review
    exercised = bool(any(isinstance(m, SystemMessage) for m in before) or current or read.stale)
    return Finding("constraints_preserved", exercised, tuple(found), tuple(review))


def _superseded(
    before: Messages,
    after: Messages,
    facts: Facts,
    asserted: Sequence[tuple[str, Mention, Mention | None]],
) -> _Judged:
    """The superseded constraints the output asserts anew: certain ones fail, others wait.

    The line reading finds a superseded constraint asserted (``reassertions``); read by tokens,
    that fails only where the sentence ruling on it is a certain "stale", and is left for review
    where the ruling is unsure. A superseded constraint the line reading does not find asserted
    is reviewed when its ruling is unsure, so that nothing the reading cannot settle passes.
    """
    violations: list[Violation] = []
    review: list[Review] = []
    made = (
        {r.fact: r for r in fact_rulings(before, after, facts) if r.kind == "superseded"}
        if facts.reading == "tokens"
        else {}
    )
    flagged = set()
    for text, now, then in asserted:
        flagged.add(text)
        ruling = made.get(text)
        if ruling is not None and not (ruling.certain and ruling.ruling == "stale"):
            if not ruling.certain:
                review.append(replace(_review("constraints_preserved", ruling), leans="stale"))
            continue
        violations.append(_reasserted(before, after, text, now, then))
    for text, ruling in made.items():
        if text not in flagged and not ruling.certain:
            review.append(_review("constraints_preserved", ruling))
    twice = restated_after_its_note(before, after, (r for t, r in made.items() if t not in flagged))
    review += [_review("constraints_preserved", ruling) for ruling in twice]
    return _Judged(violations, review)


def _reasserted(
    before: Messages, after: Messages, text: str, now: Mention, then: Mention | None
) -> Violation:
    """A superseded constraint asserted as current, pointed at the message that caused it.

    The output's last mention may be a message kept word for word (a system prompt listing the
    old value): the loss is then the written message's, which dropped the note that retired it.
    """
    replaced_at = f" (input index {then.index})" if then is not None else ""
    source = before[then.index] if then is not None else None
    cause = owed_to(before, after, now.index)
    if cause is not None and cause != now.index and copied(before, now.index, after):
        return Violation(
            "constraints_preserved",
            f"superseded constraint {text!r} is asserted as current by the "
            f"{label(after[now.index])} at output index {now.index}, kept word for word, because "
            f"the {label(after[cause])} at output index {cause} no longer says it was "
            f"replaced{replaced_at}",
            witness(after[cause], source, after[now.index]),
            kind="superseded reasserted",
        )
    return Violation(
        "constraints_preserved",
        f"superseded constraint {text!r} is asserted as current by the "
        f"{label(after[now.index])} at output index {now.index}, though the input had "
        f"replaced it{replaced_at}",
        witness(after[now.index], source),
        kind="superseded reasserted",
    )


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
            replace(
                r,
                ruling="kept",
                certainty="certain",
                reason="the input's own last mention asserts it too: not this compaction's doing",
            )
            if r.ruling == "stale" and r.fact not in asserted
            else r
            for r in made
        )
    if type(before) is tuple and type(after) is tuple:
        _RULED.insert(0, (before, after, facts, made))
        del _RULED[4:]
    return made


# The rulings of the last few compactions: two laws and the fidelity measure of one compaction
# rule on the same pair of lists with the same facts.
_RULED: list[tuple[Messages, Messages, Facts, tuple[FactRuling, ...]]] = []


# What a certain ruling that fails ``constraints_preserved`` says of a current constraint.
_BROKEN = {
    "changed": "is changed in the output (a value or name differs)",
    "contradicted": "is contradicted in the output (its polarity flipped)",
}
BROKEN_RULINGS: frozenset[str] = frozenset(_BROKEN)
"""The rulings on which ``constraints_preserved`` fails a current constraint whose tokens are
all still there, when they are certain (the fidelity measure counts such a constraint as lost
too)."""
# The leans of a current constraint's ruling that ``constraints_preserved`` judges ("weakened"
# is ``constraints_not_weakened``'s).
_JUDGED = frozenset({"kept", "reworded", "changed", "contradicted", "dropped"})
_LOSSES = frozenset({"changed", "contradicted", "dropped"})


def _current(
    before: Messages, held: FactLookup, after: Messages, facts: Facts, current: Sequence[str]
) -> _Judged:
    """The current constraints the output drops, changes or contradicts, read by sentence.

    A certain ruling fails; an unsure one is left for review. A constraint whose tokens one
    output message still holds is never reported dropped: the sentence reading adds what a token
    reading misses (polarity, a changed value), never a loss a token reading would not see.
    """
    out = FactLookup.of(after, facts.reading)
    wanted = set(current)
    violations: list[Violation] = []
    review: list[Review] = []
    # A constraint read off the history by a guess is not a rule for certain: its loss is too.
    doubtful = {
        i.text: i.source
        for i in facts.inferences
        if i.field == "constraints" and i.certainty == "unsure"
    }
    for ruling in fact_rulings(before, after, facts):
        if ruling.kind != "constraint" or ruling.fact not in wanted:
            continue
        if ruling.ruling not in _JUDGED:
            continue
        if ruling.certain and ruling.fact in doubtful and ruling.ruling in _LOSSES:
            why = f"{ruling.reason}; but it was inferred, unsure, from {doubtful[ruling.fact]}"
            review.append(replace(_review("constraints_preserved", ruling), reason=why))
            continue
        if not ruling.certain or (ruling.ruling == "dropped" and out.holds(ruling.fact)):
            if not ruling.certain:
                review.append(_review("constraints_preserved", ruling))
            continue
        text = ruling.fact
        at = held.holding(text)
        source = before[at] if at is not None else None
        if ruling.ruling == "dropped":
            violations.append(
                Violation(
                    "constraints_preserved",
                    f"current constraint {text!r} (input index {at}) is missing from the output",
                    witness(source),
                    kind="dropped",
                )
            )
        elif ruling.ruling in _BROKEN and ruling.message is not None:
            violations.append(
                Violation(
                    "constraints_preserved",
                    f"current constraint {text!r} (input index {at}) {_BROKEN[ruling.ruling]}: "
                    f"{ruling.sentence!r} (output index {ruling.message})",
                    witness(source, after[ruling.message]),
                    kind=ruling.ruling,
                )
            )
    return _Judged(violations, review)


@invariant(
    "messages",
    "constraints_not_weakened",
    "a current constraint is not restated with its restriction relaxed ('only' dropped, "
    "'never' become 'avoid if possible'); read sentence by sentence, tokens reading only; a "
    "weakening is never mechanical evidence, so it is left for review, never failed",
)
def constraints_not_weakened(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The rules keep their force: a prohibition stays a prohibition."""
    if facts.reading != "tokens" or not facts.constraints:
        return Finding("constraints_not_weakened", False)
    made = [r for r in fact_rulings(before, after, facts) if r.kind == "constraint"]
    weakened = [r for r in made if r.ruling == "weakened" and r.message is not None]
    found = [
        Violation(
            "constraints_not_weakened",
            f"current constraint {r.fact!r} is weakened in the output: {r.sentence!r} "
            f"(output index {r.message})",
            witness(after[r.message]),
        )
        for r in weakened
        if r.certain and r.message is not None
    ]
    review = [_review("constraints_not_weakened", r) for r in weakened if not r.certain]
    return Finding("constraints_not_weakened", bool(made), tuple(found), tuple(review))


@invariant(
    "messages",
    "no_invented_constraints",
    "the output states no constraint or goal (by label, 'Constraint: ...', or under a "
    "constraints heading) that neither the facts nor the input held; certain when none of its "
    "values, names or words is in the input, else left for review",
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
        if r.certain
    ]
    review = [_review("no_invented_constraints", r) for r in made if not r.certain]
    return Finding("no_invented_constraints", bool(after), tuple(found), tuple(review))


__all__ = [
    "BROKEN_RULINGS",
    "constraints_not_weakened",
    "constraints_preserved",
    "fact_rulings",
    "no_invented_constraints",
]
