"""A compactor's own parameters, drawn from the history it is applied to.

The runner draws histories, not adapter settings, so each adapter derives its settings (token
budgets, window sizes, strategies, flags) from the history itself: a pseudo-random choice seeded by
the history's *shape* (roles and tool wiring, not its text) within documented ranges, and sizes as
fractions of the history's own size. The same history always gets the same parameters, so a
recorded witness replays exactly; shrinking the history shrinks the size parameters with it, and
text-only shrinks leave every parameter alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import JsonValue

T = TypeVar("T", bound=JsonValue)


def shape(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The wiring of a history: each message's role and its tool call count or result marker."""
    signature: list[str] = []
    for message in messages:
        role = str(message.get("role"))
        calls = message.get("tool_calls") or []
        if calls:
            role += f"*{len(calls)}"
        if role == "tool":
            role += "<"
        signature.append(role)
    return signature


class ParameterDraw:
    """Settings of one compaction, chosen deterministically from the history's shape."""

    def __init__(self, messages: Sequence[Mapping[str, Any]], salt: str) -> None:
        digest = hashlib.sha256(json.dumps([salt, *shape(messages)]).encode()).digest()
        self._random = random.Random(int.from_bytes(digest[:8], "big"))
        self.drawn: dict[str, JsonValue] = {}

    def choice(self, name: str, options: Sequence[T]) -> T:
        """One of ``options``, recorded under ``name``."""
        value = options[self._random.randrange(len(options))]
        self.drawn[name] = value
        return value

    def flag(self, name: str) -> bool:
        """True or False, recorded under ``name``."""
        return self.choice(name, (False, True))

    def integer(self, name: str, low: int, high: int) -> int:
        """A whole number in ``low..high``, recorded under ``name``."""
        value = self._random.randint(low, max(low, high))
        self.drawn[name] = value
        return value

    def share(self, name: str, total: int, fractions: Sequence[float], floor: int = 1) -> int:
        """A drawn fraction of ``total``, at least ``floor``, recorded under ``name``."""
        fraction = fractions[self._random.randrange(len(fractions))]
        value = max(floor, 1, math.ceil(total * fraction))
        self.drawn[name] = value
        self.drawn[f"{name}_fraction"] = fraction
        return value

    def fixed(self, name: str, value: T) -> T:
        """A setting that is not drawn (a declared budget, say), recorded for the witness."""
        self.drawn[name] = value
        return value
