"""The session log's event envelope: type, seq, time, lossless JSON data and the surface markers."""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field, StrictInt, field_validator

from compactcheck.invariants.canonical import json_copy
from compactcheck.invariants.wire import WireModel

__all__ = [
    "MAX_SAFE_INTEGER",
    "SessionEvent",
    "json_copy",
    "lossless_copy",
    "lossless_json_problem",
]

MAX_SAFE_INTEGER = 2**53 - 1
SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})


def lossless_json_problem(value: object, path: str = "data") -> str | None:
    """Why a value would not survive a JSON round trip unchanged, or None when it would."""
    return _problem(value, path, set())


def _problem(value: object, path: str, active: set[int]) -> str | None:
    if value is None or isinstance(value, bool | str):
        return None
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            return f"{path} is the integer {value}, beyond the JSON-safe range +-(2**53-1)"
        return None
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f"{path} is {value}, which JSON cannot carry"
        if value == 0.0 and math.copysign(1.0, value) < 0:
            return f"{path} is -0.0, which JSON turns into 0"
        return None
    if isinstance(value, list | dict):
        # Cycles would make a JSON encoder loop forever; only the current path matters.
        if id(value) in active:
            return f"{path} refers back to itself (a cycle)"
        active.add(id(value))
        try:
            if isinstance(value, list):
                for index, item in enumerate(value):
                    problem = _problem(item, f"{path}[{index}]", active)
                    if problem:
                        return problem
            else:
                for key, item in value.items():
                    if not isinstance(key, str):
                        return f"{path} has the non-string key {key!r}"
                    problem = _problem(item, f"{path}.{key}", active)
                    if problem:
                        return problem
        finally:
            active.discard(id(value))
        return None
    return f"{path} holds a {type(value).__name__}, which is not a JSON value"


class _NotPlainJsonError(Exception):
    """Raised by the fast copy at the first value it does not take as plain JSON."""


# The fast path of every event's validation (exact types only, _NotPlainJsonError otherwise):
# no path strings are built unless something is wrong, and the checked value is copied in the
# same walk.
def _plain_scalar(value: Any, kind: type) -> Any:
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return value
        raise _NotPlainJsonError
    if kind is float:
        if math.isfinite(value) and (value != 0.0 or math.copysign(1.0, value) > 0):
            return value
        raise _NotPlainJsonError
    raise _NotPlainJsonError


# The containers' walks judge strings and safe integers (nearly every leaf) in line: a call per
# leaf was most of an event's validation.
def _plain_dict(value: dict[Any, Any]) -> dict[str, Any]:
    copied = {}
    for key, item in value.items():
        if type(key) is not str:
            raise _NotPlainJsonError
        kind = type(item)
        if kind is str:
            copied[key] = item
        elif kind is dict:
            copied[key] = _plain_dict(item)
        elif kind is list:
            copied[key] = _plain_list(item)
        elif kind is int and -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
            copied[key] = item
        else:
            copied[key] = _plain_scalar(item, kind)
    return copied


def _plain_list(value: list[Any]) -> list[Any]:
    copied = []
    for item in value:
        kind = type(item)
        if kind is str:
            copied.append(item)
        elif kind is dict:
            copied.append(_plain_dict(item))
        elif kind is list:
            copied.append(_plain_list(item))
        elif kind is int and -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
            copied.append(item)
        else:
            copied.append(_plain_scalar(item, kind))
    return copied


def lossless_copy(value: Any) -> Any:
    """A detached copy of lossless JSON data, or ValueError naming the first problem."""
    kind = type(value)
    try:
        if kind is dict:
            return _plain_dict(value)
        if kind is list:
            return _plain_list(value)
        return _plain_scalar(value, kind)
    except (_NotPlainJsonError, RecursionError):
        # Subclasses of str, dict or list, a value JSON cannot carry, or a cycle: the slow walk
        # says which and where.
        pass
    problem = lossless_json_problem(value)
    if problem:
        raise ValueError(f"expected lossless JSON; {problem}; send plain JSON values only")
    return json_copy(value)


class SessionEvent(WireModel):
    """One entry of the append-only session log; data stays raw JSON so plugin kinds survive."""

    type: str = Field(min_length=1)
    seq: StrictInt = Field(ge=0, le=MAX_SAFE_INTEGER)
    time: StrictInt
    data: Any
    ignorable: bool | None = None
    # Kept raw: their shape is judged by the surface rules S2-S4, which name the broken rule.
    surface_op: Any = None
    source_event_seqs: Any = None

    @field_validator("data", "surface_op", "source_event_seqs", mode="before")
    @classmethod
    def _lossless(cls, value: Any) -> Any:
        return lossless_copy(value)

    @field_validator("ignorable")
    @classmethod
    def _only_true(cls, value: bool | None) -> bool | None:
        if value is False:
            raise ValueError("expected ignorable to be true or absent; found false; omit the key")
        return value

    @classmethod
    def trusted(
        cls,
        type: str,
        seq: int,
        time: int,
        data: Any,
        surface_op: Any = None,
        source_event_seqs: Any = None,
    ) -> SessionEvent:
        """Build an event from data already known to be lossless JSON (bulk generation only)."""
        return cls.built(
            {
                "type": type,
                "seq": seq,
                "time": time,
                "data": data,
                "ignorable": None,
                "surface_op": surface_op,
                "source_event_seqs": source_event_seqs,
            }
        )

    def shared_json_data(self) -> dict[str, Any]:
        """``to_json_data()`` without the copy: the dict shares this event's JSON values.

        The event's values are plain JSON that it alone holds and no one edits (a frozen event),
        so a caller that only reads the dict, or copies it before handing it on, may share them:
        about a fifth of the cost of serialising, which copies every value.
        """
        data: dict[str, Any] = {"type": self.type, "seq": self.seq, "time": self.time}
        if self.data is not None:
            data["data"] = self.data
        if self.ignorable is not None:
            data["ignorable"] = self.ignorable
        if self.surface_op is not None:
            data["surfaceOp"] = self.surface_op
        if self.source_event_seqs is not None:
            data["sourceEventSeqs"] = self.source_event_seqs
        return data

    @property
    def is_surface_type(self) -> bool:
        """Whether the type is one of the three that may sit on the surface."""
        return self.type in SURFACE_TYPES

    @property
    def is_replacement(self) -> bool:
        """Whether this event replaces surface nodes rather than appending one."""
        return self.surface_op is not None and self.surface_op != "append"

    @property
    def is_append(self) -> bool:
        """Whether this event was appended to the surface (a human transcript reads these)."""
        return bool(self.surface_op == "append")
