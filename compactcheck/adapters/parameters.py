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
    """Settings of one compaction: from Hypothesis's knobs when the runner drew them.

    The runner draws a few small integers ("knobs") with every history and hands them over;
    each setting takes the next knob, so Hypothesis shrinks the settings toward the first
    option of each range together with the history. Without knobs (a direct call), the
    settings come from a pseudo-random choice seeded by the history's shape.
    """

    def __init__(
        self, messages: Sequence[Mapping[str, Any]], salt: str, knobs: Sequence[int] = ()
    ) -> None:
        digest = hashlib.sha256(json.dumps([salt, *shape(messages)]).encode()).digest()
        self._random = random.Random(int.from_bytes(digest[:8], "big"))
        self._knobs = list(knobs)
        self.drawn: dict[str, JsonValue] = {}

    def _index(self, count: int) -> int:
        if self._knobs:
            return self._knobs.pop(0) % count
        return self._random.randrange(count)

    def choice(self, name: str, options: Sequence[T]) -> T:
        """One of ``options``, recorded under ``name``."""
        value = options[self._index(len(options))]
        self.drawn[name] = value
        return value

    def flag(self, name: str) -> bool:
        """True or False, recorded under ``name``."""
        return self.choice(name, (False, True))

    def integer(self, name: str, low: int, high: int) -> int:
        """A whole number in ``low..high``, recorded under ``name``."""
        value = low + self._index(max(low, high) - low + 1)
        self.drawn[name] = value
        return value

    def share(self, name: str, total: int, fractions: Sequence[float], floor: int = 1) -> int:
        """A drawn fraction of ``total``, at least ``floor``, recorded under ``name``."""
        fraction = fractions[self._index(len(fractions))]
        value = max(floor, 1, math.ceil(total * fraction))
        self.drawn[name] = value
        self.drawn[f"{name}_fraction"] = fraction
        return value

    def fixed(self, name: str, value: T) -> T:
        """A setting that is not drawn (a declared budget, say), recorded for the witness."""
        self.drawn[name] = value
        return value
