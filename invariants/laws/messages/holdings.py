"""Where a history holds the facts the laws judge: a form a careless compactor cannot read.

A law finds a fact wherever a message holds it (``reading``): in a plain string, in a list of
content parts, in a tool call's arguments, anywhere in a tool result. A compactor may read less:
only string contents, never a call's arguments, only the head of a long result. A compaction
whose input held some fact only in one such form is one on which that reading would lose it;
these are counted per run, so that a pass says which of them it covered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Literal

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.laws.messages.reading import Messages, corpus
from compactcheck.invariants.messages import AssistantMessage, ToolMessage, content_text

Form = Literal["call_arguments", "long_result", "parts"]
FORMS: Final[tuple[Form, ...]] = ("call_arguments", "long_result", "parts")
FORM_NAMES: Final[dict[str, str]] = {
    "call_arguments": "call arguments",
    "long_result": "a long tool result",
    "parts": "a list of parts",
}
"""How a report names each form, after "held only in"."""

LONG_RESULT: Final = 1000
"""A tool result is long past this many characters: its later part is what a compactor that
keeps the head of each result (a common cut) loses."""

# Where one occurrence sits: one of the forms, or anywhere else (a plain string's text, a call's
# id or name, the head of a result).
_Spot = Literal["call_arguments", "long_result", "parts", "plain"]


def _spots(message: object, fact: str) -> Iterator[_Spot]:
    """Where one message holds ``fact``: each place it occurs, by form."""
    if isinstance(message, AssistantMessage) and message.tool_calls:
        for call in message.tool_calls:
            if fact in call.function.arguments:
                yield "call_arguments"
            if fact in call.id or fact in call.function.name:
                yield "plain"
    if isinstance(message, ToolMessage) and fact in message.tool_call_id:
        yield "plain"
    content = getattr(message, "content", None)
    text = content_text(content)
    at = text.find(fact)
    if at < 0:
        return
    if isinstance(message, ToolMessage) and len(text) > LONG_RESULT and at >= LONG_RESULT:
        yield "long_result"
    else:
        yield "parts" if isinstance(content, tuple) else "plain"


def judged_facts(facts: Facts) -> list[str]:
    """The facts whose place matters: the goal, the current constraints, the must-keep ones."""
    texts = [facts.goal, *facts.constraints, *facts.must_keep]
    return [text for text in dict.fromkeys(texts) if text]


def held_only_in(messages: Messages, facts: Facts) -> frozenset[Form]:
    """The forms in which the input holds some judged fact and nowhere else.

    Read verbatim: a fact's exact text, each occurrence placed by its form (a tool result's
    text past its first ``LONG_RESULT`` characters is a long result's; a content given as parts
    is a parts list's, whatever its role).
    """
    whole = corpus(messages)
    found: set[Form] = set()
    for fact in judged_facts(facts):
        if fact not in whole:
            continue
        spots = {spot for message in messages for spot in _spots(message, fact)}
        if len(spots) == 1:
            (only,) = spots
            if only != "plain":
                found.add(only)
        if len(found) == len(FORMS):
            break
    return frozenset(found)
