"""The actions of a turn as drawn: a plain action (say, fail, activate a skill) or a tool batch."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from hypothesis import strategies as st

from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.calls import tool_call
from compactcheck.strategies.digits import Digits, wide_values
from compactcheck.strategies.turns import Action, ActivateSkill, FailAttempt, Say, ToolBatch

MAX_PARALLEL_CALLS: Final = 3
# How many calls a tool batch makes at once, by digit: half the batches make one call.
_PARALLEL: Final = (1, 1, 1, 1, 2, 2, 3, 3)
# An action's kind: its low bit says whether it is a tool batch, the rest how many calls.
_KIND = st.integers(0, 2 * len(_PARALLEL) - 1)
_PLAIN = st.integers(0, 3 * 5 - 1)


@st.composite
def _batches(draw: st.DrawFn) -> ToolBatch:
    """A tool batch: one wide draw per call (a call's every digit comes from its own draw)."""
    return _batch(draw, draw(_KIND) >> 1)


def _batch(draw: st.DrawFn, width_digit: int) -> ToolBatch:
    width = _PARALLEL[width_digit % len(_PARALLEL)]
    return ToolBatch("", tuple(draw(_CALL) for _ in range(width)))


# A call is a mapped draw, not a bare integer: Hypothesis labels draws by strategy, and its
# generator copies values between draws of one label, which would make calls and the header or
# a turn's traits (all bare integers) echo each other.
_CALL = wide_values.map(tool_call)


@lru_cache(maxsize=16)
def plain_action(value: int) -> Action:
    """A plain action: one of three kinds, then its text, from one small drawn integer."""
    digits = Digits(value)
    kind = digits.take(3)
    if kind == 0:
        return Say(digits.pick(words.ASSISTANT_TEXTS))
    if kind == 1:
        return FailAttempt(digits.pick(words.ATTEMPTS))
    return ActivateSkill(*digits.pick(words.SKILLS))


@st.composite
def _actions(draw: st.DrawFn) -> Action:
    """An action: one draw for its kind, then one for a plain action or one per call.

    Fewer choices than a one_of of lists (no list bookkeeping per call) make a cheaper case,
    and each call keeps a whole wide draw of its own, so calls stay as varied as before.
    """
    kind = draw(_KIND)
    if kind & 1:
        return _batch(draw, kind >> 1)
    return plain_action(draw(_PLAIN))


# Strategies built once: a strategy made inside the loop is looked up in Hypothesis's cache on
# every draw, a cost that shows at a few milliseconds per case.
ACTIONS = _actions()
BATCHES = _batches()
