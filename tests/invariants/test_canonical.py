"""Canonical JSON follows RFC 8785."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from invariants import canonical_json, canonically_equal, sha256_hex

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


def test_rfc8785_examples() -> None:
    assert canonical_json({"b": 1, "a": [1.0, 2.5, "é"]}) == '{"a":[1,2.5,"é"],"b":1}'.encode()
    # Keys sort by UTF-16 code units, not by code points.
    assert canonical_json({"\U0001f600": 1, "\ufb01": 2}) == '{"\U0001f600":1,"\ufb01":2}'.encode()


@given(st.dictionaries(st.text(max_size=5), JSON, max_size=5))
def test_key_order_never_changes_the_checksum(value: dict[str, object]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert canonically_equal(value, reordered)
    assert sha256_hex(value) == sha256_hex(reordered)


def test_different_values_differ() -> None:
    assert not canonically_equal([1, 2], [2, 1])
    assert sha256_hex({"a": 1}) != sha256_hex({"a": 2})


class _Text(str):
    """A str subclass: Python and the encoder take it for its text."""


NUMBERS_AND_FLAGS = st.recursive(
    st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, None, 2.5, "1", _Text("1")]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=6,
)


@given(NUMBERS_AND_FLAGS, NUMBERS_AND_FLAGS)
def test_equality_is_decided_as_the_canonical_encodings_decide_it(
    left: object, right: object
) -> None:
    # The fast paths must agree with encoding both, also where Python equates true and 1, or
    # 1.0 and 1.
    assert canonically_equal(left, right) == (canonical_json(left) == canonical_json(right))
