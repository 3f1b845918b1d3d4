"""Canonical equality decided from orjson's writing agrees with the canonical encodings.

``canonically_equal`` takes two equal values that orjson writes alike (keys sorted) as equal
without walking them; everything else (a difference orjson sees, a value it refuses) is walked.
Compared here with encoding both, on values orjson writes, refuses (integers past 64 bits, lone
surrogates, non-string keys), and mixes (tuples, subclasses, -0.0, key order). A tuple holding
``false`` beside one holding ``0`` was taken as equal by the walk once.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants import canonical_json, canonically_equal


class _Text(str):
    """A str subclass: encoded as its text."""


class _Number(int):
    """An int subclass: encoded as its value."""


LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, 2**64, -(2**63) - 1, 2**53 + 1])
    | st.sampled_from([_Number(1), _Number(0), _Text("1"), "1", "\ud800", "\U0001f600"])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
)
KEYS = st.sampled_from(["a", "b", "é", "\U0001f600", _Text("a")]) | st.text(max_size=2)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=2).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=3)
        | st.dictionaries(st.integers(0, 2), inner, max_size=2)
    ),
    max_leaves=10,
)
# Without tuples: a tuple beside an equal list is unequal to Python (and so a change to the
# laws, which must see a list turned into a tuple), though both encode as an array.
LISTS_ONLY = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=10,
)


def _rewritten(value: object, data: st.DataObject) -> object:
    """A detached copy of ``value`` with its keys in another order and leaves maybe swapped for
    Python-equal ones of another type (the twins ``canonically_equal`` must tell apart)."""
    if isinstance(value, dict):
        items = list(value.items())
        order = data.draw(st.permutations(range(len(items))))
        return {items[at][0]: _rewritten(items[at][1], data) for at in order}
    if isinstance(value, list | tuple):
        copied = [_rewritten(item, data) for item in value]
        return tuple(copied) if isinstance(value, tuple) else copied
    twins = {0: (0, False, 0.0, -0.0, _Number(0)), 1: (1, True, 1.0, _Number(1))}
    if type(value) in (int, bool, float, _Number) and value in twins:
        return data.draw(st.sampled_from(twins[value]))
    if value == "1":
        return data.draw(st.sampled_from(["1", _Text("1")]))
    return value


def _encodings_equal(left: object, right: object) -> bool | None:
    """Whether the canonical encodings are equal; None where either cannot be encoded."""
    try:
        return canonical_json(left) == canonical_json(right)
    except (ValueError, TypeError):
        return None


@given(VALUES, st.data())
def test_equal_values_are_equal_exactly_where_their_encodings_are(
    value: object, data: st.DataObject
) -> None:
    twin = _rewritten(value, data)
    expected = _encodings_equal(value, twin)
    if expected is not None:
        assert canonically_equal(value, twin) == expected
        assert canonically_equal(twin, value) == expected


@given(LISTS_ONLY, LISTS_ONLY)
def test_unrelated_values_are_equal_exactly_where_their_encodings_are(
    left: object, right: object
) -> None:
    expected = _encodings_equal(left, right)
    if expected is not None:
        assert canonically_equal(left, right) == expected


@given(VALUES)
def test_a_value_is_equal_to_itself(value: object) -> None:
    assert canonically_equal(value, value)
