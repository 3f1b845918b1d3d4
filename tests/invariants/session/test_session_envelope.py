"""The session event envelope: its fast lossless copy agrees with the slow check everywhere."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants.session.envelope import (
    MAX_SAFE_INTEGER,
    SessionEvent,
    lossless_copy,
    lossless_json_problem,
)


class _Text(str):
    """A str subclass: not plain JSON to the fast path, yet lossless."""


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(MAX_SAFE_INTEGER + 2), MAX_SAFE_INTEGER + 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.builds(_Text, st.text(max_size=3)),
    st.tuples(st.integers(0, 3)),
    st.sampled_from([-0.0, 0.0, b"x"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 2)), inner, max_size=3),
    ),
    max_leaves=12,
)


@given(_values)
def test_the_fast_copy_accepts_exactly_what_the_slow_check_accepts(value: Any) -> None:
    problem = lossless_json_problem(value)
    if problem is None:
        copied = lossless_copy(value)
        assert copied == value
    else:
        with pytest.raises(ValueError, match="expected lossless JSON"):
            lossless_copy(value)


def test_a_cycle_is_named_not_a_recursion_error() -> None:
    looped: list[Any] = [1]
    looped.append(looped)
    with pytest.raises(ValueError, match="refers back to itself"):
        lossless_copy(looped)


def test_the_copy_shares_no_list_or_dict_with_the_original() -> None:
    value = {"a": [{"b": 1}]}
    copied = lossless_copy(value)
    copied["a"][0]["b"] = 2
    assert value == {"a": [{"b": 1}]}


@given(
    st.sampled_from(["user/message", "tool/call"]),
    st.integers(0, 10),
    st.sampled_from([None, "append", {"op": "replace", "start": 0, "end": 1}]),
    st.sampled_from([None, [0, 1]]),
)
def test_a_trusted_event_is_what_model_construct_builds(
    kind: str, seq: int, surface_op: Any, sources: Any
) -> None:
    data = {"turn": 1, "text": "x"}
    trusted = SessionEvent.trusted(kind, seq, seq, data, surface_op, sources)
    constructed = SessionEvent.model_construct(
        type=kind,
        seq=seq,
        time=seq,
        data=data,
        ignorable=None,
        surface_op=surface_op,
        source_event_seqs=sources,
    )
    assert trusted == constructed
    assert trusted.__dict__ == constructed.__dict__
    assert trusted.model_fields_set == constructed.model_fields_set
    assert trusted.__pydantic_extra__ == constructed.__pydantic_extra__
    assert trusted.__pydantic_private__ == constructed.__pydantic_private__
    assert trusted.to_json_data() == constructed.to_json_data()
    assert SessionEvent.from_json_data(trusted.to_json_data()) == trusted


_plain = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["user/message", "x/y"]),
            "seq": st.integers(0, 9),
            "time": st.integers(-3, 9),
            "data": _plain,
        },
        optional={
            "ignorable": st.just(True),
            "surfaceOp": _plain,
            "sourceEventSeqs": _plain,
        },
    )
)
def test_the_shared_json_data_is_the_serialised_form_sharing_the_values(
    raw: dict[str, Any],
) -> None:
    event = SessionEvent.from_json_data(raw)
    shared = event.shared_json_data()
    assert shared == event.to_json_data()
    assert list(shared) == list(event.to_json_data())
    if isinstance(event.data, dict | list):
        assert shared["data"] is event.data
