"""JSON data as the laws handle it: canonical JSON (RFC 8785), its checksums, and copies."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

import orjson
import rfc8785


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 canonical encoding of JSON-shaped data.

    Data of exact JSON types without floats, with safe integers and ASCII keys (snapshots,
    events, states) is written by the standard library's C encoder, whose output is the
    canonical one there: keys sorted by code point sort as UTF-16 units do, and both escape
    exactly the control characters, quote and backslash, alike. Anything else (floats, whose
    forms differ; other keys; other types; lone surrogates) is written by ``rfc8785``.
    """
    try:
        if plain_json(value):
            return _ENCODER.encode(value).encode("utf-8")
    except (RecursionError, UnicodeEncodeError):
        pass
    return bytes(rfc8785.dumps(value))


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
# The largest integer every JSON reader holds exactly (RFC 8785 section 3.2.2.3, I-JSON).
MAX_SAFE_INTEGER = 2**53 - 1


def plain_json(value: Any) -> bool:
    """Whether a value is JSON data of exact types without floats, with safe integers and ASCII
    keys: what ``json.dumps`` writes as RFC 8785 does (see ``canonical_json``), and as pydantic's
    JSON writer does (strings it cannot write as UTF-8 aside)."""
    kind = type(value)
    if kind is dict:
        for key in value:
            if type(key) is not str or not key.isascii():
                return False
        return _plain_items(value.values())
    if kind is list:
        return _plain_items(value)
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    return kind is str or kind is bool or value is None


def _plain_items(items: Iterable[Any]) -> bool:
    """``plain_json`` of every item, leaves judged in line (a call per leaf cost most)."""
    for item in items:
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                continue
            return False
        if (kind is dict or kind is list) and plain_json(item):
            continue
        return False
    return True


def json_text(value: Any) -> str:
    """Compact JSON text of JSON data, non-ASCII as it is.

    Written by orjson, several times faster than the standard library, which writes what orjson
    refuses (non-string keys, integers past 64 bits, lone surrogates, nesting past 254 levels).
    The two differ only in floats: a small exponent (``1e-7`` against ``1e-07``), and NaN and
    the infinities, which orjson writes as ``null``.
    """
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return _COMPACT.encode(value)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def sha256_hex(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of a value."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def canonically_equal(left: Any, right: Any) -> bool:
    """Whether two JSON-shaped values have the same canonical encoding.

    Decided without encoding in the usual cases: values Python finds unequal encode apart
    (distinct floats have distinct shortest forms; key order counts for neither), and equal
    values encode alike wherever their types match node by node. Only where Python equates two
    values of different types (``true`` beside ``1``, ``1.0`` beside ``1``, a subclass beside
    its base) are those two encoded and compared.

    Equal values that orjson writes alike (keys sorted) are canonically equal: its writing
    tells every type Python equates apart (``true``, ``1``, ``1.0``), so only a difference it
    sees, or a value it refuses, needs the walk; in C it is several times faster than the walk.
    """
    if left is right:
        return True
    if left != right:
        return False
    try:
        if orjson.dumps(left, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            right, option=orjson.OPT_SORT_KEYS
        ):
            return True
    except TypeError:
        pass
    try:
        return _same_types(left, right)
    except RecursionError:
        return canonical_json(left) == canonical_json(right)


def _same_types(left: Any, right: Any) -> bool:
    """For two values Python finds equal: whether they also encode alike, node by node."""
    kind = type(left)
    if kind is not type(right):
        return canonical_json(left) == canonical_json(right)
    if kind is dict:
        for key, value in left.items():
            other = right[key]
            # What a call would answer for equal leaves of one type, judged in line (a call per
            # leaf was most of the time).
            inner = type(value)
            if inner is type(other) and inner in _SHARED:
                continue
            if not _same_types(value, other):
                return False
        return True
    if kind is list or kind is tuple:
        for value, other in zip(left, right, strict=True):
            inner = type(value)
            if inner is type(other) and inner in _SHARED:
                continue
            if not _same_types(value, other):
                return False
        return True
    if isinstance(left, dict | list | tuple):
        # A container subclass: its items may still differ in type (``true`` beside ``1``).
        return canonical_json(left) == canonical_json(right)
    # Equal scalars of one type (str, int, float, bool, None, or one subclass) encode alike;
    # -0.0 encodes as 0.
    return True


def json_copy(value: Any) -> Any:
    """A detached deep copy of JSON data: lists and dicts rebuilt (subclasses as plain ones),
    scalars shared. A third of ``copy.deepcopy``'s time: no memo and, for exact types, no
    ``isinstance`` chain."""
    kind = type(value)
    if kind is dict:
        return _copy_dict(value)
    if kind is list:
        return _copy_list(value)
    if kind in _SHARED:
        return value
    if isinstance(value, dict):
        return _copy_dict(value)
    if isinstance(value, list):
        return _copy_list(value)
    return value


# Exact scalar types, shared in line by the containers' walks (a call per leaf was most of a
# copy's time); anything else goes through json_copy.
_SHARED = frozenset({str, int, float, bool, type(None)})


def _copy_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    copied = {}
    for key, item in value.items():
        copied[key] = item if type(item) in _SHARED else json_copy(item)
    return copied


def _copy_list(value: list[Any]) -> list[Any]:
    return [item if type(item) in _SHARED else json_copy(item) for item in value]
