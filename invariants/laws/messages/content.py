"""The messages laws on what must still be said: the goal, the facts, a user.

The laws on the rules (the system prompt, the constraints, their force, new ones) are
``compactcheck.invariants.laws.messages.constraints``; they and the readings they share are
named here too, where the catalogue and the toolkit have always found them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.cause import owed_to
from compactcheck.invariants.laws.messages.constraints import (
    BROKEN_RULINGS,
    constraints_not_weakened,
    constraints_preserved,
    fact_rulings,
    no_invented_constraints,
)
from compactcheck.invariants.laws.messages.mentions import (
    Mention,
    Reassertions,
    constraint_mentions,
    reassertions,
    token_mentions,
)
from compactcheck.invariants.laws.messages.reading import (
    FactLookup,
    Messages,
    label,
    searchable_text,
)
from compactcheck.invariants.marks import marks_of, presence
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.rulings import FAILING, FAITHFUL, rule
from compactcheck.invariants.sentences import SentenceIndex
from compactcheck.invariants.verdict import Finding, Review, Violation, value_diff, witness


@invariant(
    "messages",
    "goal_preserved",
    "the task's goal survives: the first user message that states it survives verbatim, or its "
    "goal's distinctive tokens (its text, when the reading is verbatim) survive in one output "
    "message; in a later round, the goal the task declared, wherever the input holds it; a loss "
    "that no value or name of the goal proves is left for review",
)
def goal_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The task's goal is not lost, in the first round or any later one."""
    first = next(((index, m) for index, m in enumerate(before) if isinstance(m, UserMessage)), None)
    declared = facts.goal.strip() if facts.goal else ""
    opening = content_text(first[1].content) if first is not None else ""
    message: ChatMessage
    if first is not None and (not declared or declared in opening):
        index, message = first
        if any(opening in content_text(kept.content) for kept in after):
            return Finding("goal_preserved", True)
        # Read by tokens, the goal is the planted one where the message states it (the rest of
        # the message is how the user put it), else the whole message.
        goal = declared or opening
        where = f"the first user message (input index {index})"
    else:
        # A later round: the input's first user message is that round's ("Go on. ..."); the goal
        # is the one the task declared, in whichever message of the input still holds it.
        held = FactLookup.of(before, facts.reading)
        at = held.holding(declared) if declared else None
        if at is None:
            return Finding("goal_preserved", False)
        index, message, goal = at, before[at], declared
        where = f"the goal {goal!r} (input index {index})"
        if any(goal in content_text(kept.content) for kept in after):
            return Finding("goal_preserved", True)
    tokens = facts.reading == "tokens"
    missing = FactLookup.of(after, facts.reading).missing(goal) if tokens else []
    if tokens and not missing:
        return Finding("goal_preserved", True)
    cause = owed_to(before, after)
    lost = f" (no output message holds {', '.join(map(repr, missing))})" if missing else ""
    # A later round's loss is owed to the message the compaction wrote (its summary), which a
    # reader would otherwise have to find among the messages kept as they were.
    written = (
        f"; the {label(after[cause])} at output index {cause} is what the compaction wrote"
        if cause is not None and where.startswith("the goal")
        else ""
    )
    text = content_text(message.content)
    first_out = next((m for m in after if isinstance(m, UserMessage)), None)
    because = (
        f"{where} does not survive: no output message is it or contains its "
        f"{'goal' if tokens else 'text'}{lost}{written}"
    )
    shown = witness(message, after[cause] if written and cause is not None else None)
    diff = value_diff(text, content_text(first_out.content)) if first_out is not None else None
    if tokens:
        unsure = _unsure_loss(goal, after)
        if unsure is not None:
            review = Review("goal_preserved", goal, "goal", unsure[0], unsure[1], None, cause)
            return Finding("goal_preserved", True, (), (review,))
    return Finding("goal_preserved", True, (Violation("goal_preserved", because, shown, diff),))


def _unsure_loss(goal: str, after: Messages) -> tuple[str, str] | None:
    """Why a goal whose tokens no one output message holds is not certainly lost, or None.

    It is certainly lost when one of its values or names is nowhere in the output, or when the
    ruling on it is a certain loss; a faithful certain ruling still stands for review, since
    the tokens say otherwise.
    """
    index = SentenceIndex([searchable_text(m) for m in after])
    absent = [mark for mark in marks_of(goal) if presence(mark, index) == "absent"]
    if absent:
        return None
    made = rule(goal, index, "goal")
    if made.certain and made.ruling in FAILING:
        return None
    reason = made.reason if not made.certain else "its tokens are spread over several messages"
    return ("dropped" if made.ruling in FAITHFUL else made.ruling), reason


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


__all__ = [
    "BROKEN_RULINGS",
    "Mention",
    "Reassertions",
    "constraint_mentions",
    "constraints_not_weakened",
    "constraints_preserved",
    "fact_rulings",
    "facts_preserved",
    "goal_preserved",
    "no_invented_constraints",
    "non_empty",
    "reassertions",
    "token_mentions",
    "user_turn_first",
    "user_turn_present",
]
