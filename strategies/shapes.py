"""How an agent's client records its messages: plain strings, or the other shapes providers take.

Real clients differ in how they write the same run: one sends every content as a list of text
parts, one pastes a screenshot into the first message, one sends ``"content": null`` beside tool
calls, one writes the assistant's words in the message that makes the calls, one keeps its plan
with a tool (``update_plan``) instead of saying it. ``Shapes`` reads which of these one history
has from one drawn integer; the messages view writes the history so, and every provider format
projects it in its own forms. The integer shrinks toward 0, plain strings and nothing else: the
history every earlier release drew.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from hypothesis import strategies as st

from compactcheck.strategies.digits import Digits

# Each shape's (chance, out of): about half the histories send user contents as parts, a third
# paste an image, and so on; every shape occurs in at least a fifth of histories.
_SHAPES: Final[tuple[tuple[str, int, int], ...]] = (
    ("user_parts", 1, 2),
    ("image", 1, 2),
    ("assistant_parts", 1, 3),
    ("tool_parts", 1, 3),
    ("system_parts", 1, 4),
    ("refusal", 1, 2),
    ("words_with_calls", 1, 2),
    ("plan_tool", 1, 2),
    ("null_content", 1, 2),
    ("names", 1, 2),
)
SHAPE_RANGE: Final = math.prod(out_of for _, _, out_of in _SHAPES)
# Drawn as two integers of under ten bits each (a wider one leans to zero in its high digits,
# which would make the shapes read last rare): the first half of the shapes, then the rest;
# each from a range of its own, so that Hypothesis copies no other draw's value into them.
_LOW: Final = math.prod(out_of for _, _, out_of in _SHAPES[:5])
SHAPE_HALVES: Final = (st.sampled_from(range(_LOW)), st.sampled_from(range(SHAPE_RANGE // _LOW)))


def shape_value(low: int, high: int) -> int:
    """The integer ``Shapes.of`` reads, from the two drawn halves."""
    return low + _LOW * high


# The shapes that are forms of content rather than places a fact is held: a target whose
# framework has no way to hold one declares it (``Implementation.unheld_forms``), and is sent
# no history in it. Where facts are held (``words_with_calls``, ``plan_tool``) is not a form a
# target can decline: every framework holds text beside calls and a call's arguments.
CONTENT_FORMS: Final[tuple[str, ...]] = (
    "system_parts",
    "user_parts",
    "assistant_parts",
    "tool_parts",
    "image",
    "refusal",
    "null_content",
    "names",
)


def unknown_forms(forms: Collection[str]) -> list[str]:
    """The names among ``forms`` that are no content form (``CONTENT_FORMS``), sorted."""
    return sorted(set(forms) - set(CONTENT_FORMS))


def without(value: int, forms: Collection[str]) -> int:
    """The shapes integer ``value`` with the shapes ``forms`` turned off, every other the same.

    Each shape is one digit of ``value`` (``Shapes.of``); a digit of 0 is "no" whatever its
    chance, so the history differs only in the forms left out. ValueError for a name that is
    no content form.
    """
    unknown = unknown_forms(forms)
    if unknown:
        raise ValueError(f"no content form named {unknown}; the forms are {list(CONTENT_FORMS)}")
    if not forms:
        return value
    kept = 0
    place = 1
    for name, _, out_of in _SHAPES:
        value, digit = divmod(value, out_of)
        kept += (0 if name in forms else digit) * place
        place *= out_of
    return kept


@dataclass(frozen=True)
class Shapes:
    """Which shapes one history's messages take, read from one drawn integer."""

    user_parts: bool = False
    """User messages carry their content as a list of text parts, one per paragraph."""
    assistant_parts: bool = False
    """The assistant's texts are lists of text parts."""
    tool_parts: bool = False
    """Tool results are lists of text parts."""
    system_parts: bool = False
    """The system prompt is a list of text parts: the instructions, then the constraints."""
    image: bool = False
    """The first user message carries a screenshot (an image part, at a placeholder URL)."""
    names: bool = False
    """User messages carry the user's ``name``."""
    null_content: bool = False
    """A message that only makes tool calls says ``"content": null`` rather than leaving it out."""
    refusal: bool = False
    """The assistant answers the first user message with a refusal part (of part of it)."""
    words_with_calls: bool = False
    """What the assistant says right before a tool batch is in the message that makes the calls."""
    plan_tool: bool = False
    """The agent starts and completes plan steps with ``update_plan`` calls, not in words."""

    @classmethod
    def of(cls, value: int) -> Shapes:
        """The shapes an integer of ``SHAPE_VALUES`` names (0: none of them)."""
        digits = Digits(value)
        return cls(**{name: digits.chance(chance, out_of) for name, chance, out_of in _SHAPES})

    @property
    def any(self) -> bool:
        """Whether the history takes any shape but plain strings."""
        return self != PLAIN


PLAIN: Final = Shapes()
