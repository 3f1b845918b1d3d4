"""What a checker returns: whether the example exercised it, and each violation with its witness."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from deepdiff import DeepDiff
from pydantic import JsonValue


@dataclass(frozen=True)
class Violation:
    """One breach of an invariant.

    ``because`` is one sentence naming the events or messages involved; ``witness`` holds only
    those (as JSON data); ``diff`` is a deepdiff of expected against actual where values differ.
    """

    invariant: str
    because: str
    witness: tuple[JsonValue, ...] = ()
    diff: dict[str, Any] | None = None

    def to_json_data(self) -> dict[str, Any]:
        """The violation as JSON data."""
        data: dict[str, Any] = {
            "invariant": self.invariant,
            "because": self.because,
            "witness": list(self.witness),
        }
        if self.diff is not None:
            data["diff"] = self.diff
        return data


@dataclass(frozen=True)
class Finding:
    """The outcome of one checker on one example."""

    invariant: str
    exercised: bool
    violations: tuple[Violation, ...] = ()

    @property
    def holds(self) -> bool:
        """Whether no violation was found."""
        return not self.violations


def value_diff(expected: Any, actual: Any) -> dict[str, Any] | None:
    """A JSON-safe deepdiff of two JSON-shaped values, or None when they are equal."""
    difference = DeepDiff(expected, actual, ignore_order=False, verbose_level=2)
    if not difference:
        return None
    data: dict[str, Any] = json.loads(difference.to_json())
    return data
