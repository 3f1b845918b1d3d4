"""Canonical JSON follows RFC 8785."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import rfc8785
from hypothesis import assume, given
from hypothesis import strategies as st

from compactcheck.invariants import canonical_json, canonically_equal, sha256_hex
from compactcheck.invariants.canonical import json_copy, json_text

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


# Everything the encoder's fast path and its fallback tell apart: floats, integers at and past
# the safe range, non-ASCII and astral keys (UTF-16 order), control characters, lone
# surrogates, subclasses and tuples.
EDGE_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**53 - 1, -(2**53) + 1, 2**53, -(2**53), 1e16, 1e-7, -0.0, 1.0])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(['\x00\x1f\x7f"\\\b\f\n\r\t', "\ud800", _Text("t"), "\U0001f600", "\ufb01"])
)
EDGE_KEYS = st.sampled_from(["a", "B", "é", "\ufb01", "\U0001f600", "\x01", _Text("k")]) | st.text(
    max_size=3
)
EDGES = st.recursive(
    EDGE_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=2).map(tuple)
        | st.dictionaries(EDGE_KEYS, inner, max_size=4)
    ),
    max_leaves=10,
)
PLAIN_EDGES = st.recursive(
    EDGE_LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(EDGE_KEYS, inner, max_size=4),
    max_leaves=10,
)


@given(EDGES)
def test_the_encoder_writes_what_rfc8785_writes(value: object) -> None:
    try:
        expected = bytes(rfc8785.dumps(value))  # type: ignore[arg-type]
    except (rfc8785.CanonicalizationError, ValueError) as error:
        with pytest.raises(type(error)):
            canonical_json(value)
        return
    assert canonical_json(value) == expected


@given(PLAIN_EDGES)
def test_a_json_copy_is_equal_and_shares_no_container(value: object) -> None:
    copied = json_copy(value)
    assert copied == value
    originals = {id(node) for node in _containers(value)}
    assert not any(id(node) in originals for node in _containers(copied))


def _containers(value: object) -> list[object]:
    if isinstance(value, dict):
        return [value, *(node for item in value.values() for node in _containers(item))]
    if isinstance(value, list):
        return [value, *(node for item in value for node in _containers(item))]
    return []


# Python-equal alternatives of a leaf: the twins canonically_equal must tell apart or not.
_TWINS: dict[object, tuple[object, ...]] = {
    0: (0, False, 0.0, -0.0),
    1: (1, True, 1.0),
    "1": ("1", _Text("1")),
}


def _twin(value: object, data: st.DataObject) -> object:
    """A Python-equal copy of a value, each leaf maybe swapped for an equal one of another type."""
    if type(value) is dict:
        return {key: _twin(item, data) for key, item in value.items()}
    if type(value) is list:
        return [_twin(item, data) for item in value]
    for leaf, twins in _TWINS.items():
        if type(value) is type(leaf) and value == leaf:
            return data.draw(st.sampled_from(twins))
    return value


@given(NUMBERS_AND_FLAGS, st.data())
def test_equal_values_are_told_apart_as_their_encodings_tell_them(
    value: object, data: st.DataObject
) -> None:
    twin = _twin(value, data)
    assert twin == value
    assert canonically_equal(value, twin) == (canonical_json(value) == canonical_json(twin))
    assert canonically_equal(twin, value) == (canonical_json(twin) == canonical_json(value))


def _standard(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(st.one_of(EDGES, JSON))
def test_json_text_is_the_standard_librarys_compact_text(value: object) -> None:
    # Where orjson writes, it spells everything as the standard library does but floats of a
    # small exponent and NaN or the infinities; where it refuses, the standard library writes.
    floats_apart = any(
        isinstance(leaf, float) and (not math.isfinite(leaf) or "e-0" in repr(leaf))
        for leaf in _leaves(value)
    )
    assume(not floats_apart)
    assert json_text(value) == _standard(value)


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    # Tuples too: EDGES draws them, and a float inside one is written like any other.
    if isinstance(value, list | tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [{1: "a"}, 2**70, "\ud800", _nested(300), _Text("x")],
    ids=["int key", "big int", "lone surrogate", "nested", "str subclass"],
)
def test_json_text_falls_back_where_orjson_refuses(value: object) -> None:
    assert json_text(value) == _standard(value)
