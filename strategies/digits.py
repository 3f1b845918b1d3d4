"""Digits: several small choices read out of one drawn integer, so that a record is one draw."""

from __future__ import annotations

from typing import Final, TypeVar

from hypothesis import strategies as st

_T = TypeVar("_T")

# Hypothesis draws wide integers with a bias toward small ones: the low digits (about ten bits)
# are fair, the high ones lean to zero. So flags sit in low digits, text choices above them.
WIDE: Final = 2**24 - 1
wide_values = st.integers(0, WIDE)


def sometimes(chance: int, out_of: int) -> st.SearchStrategy[bool]:
    """True with probability chance/out_of; shrinks to False (the plainer history)."""
    return st.sampled_from((False,) * (out_of - chance) + (True,) * chance)


class Digits:
    """Reads several small choices out of one drawn integer, lowest digit first.

    One draw per record instead of one per field keeps generation fast, and the integer still
    shrinks toward zero: toward the first (shortest) entry of every pool and toward "no".
    """

    def __init__(self, value: int) -> None:
        self.value = value

    def take(self, base: int) -> int:
        """The next digit in base ``base``."""
        self.value, digit = divmod(self.value, base)
        return digit

    def pick(self, pool: tuple[_T, ...]) -> _T:
        """An entry of a pool."""
        return pool[self.take(len(pool))]

    def chance(self, chance: int, out_of: int) -> bool:
        """True for ``chance`` of the ``out_of`` digit values, never for digit 0."""
        return self.take(out_of) >= out_of - chance
