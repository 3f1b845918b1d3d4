"""What a checker returns: whether the example exercised it, and each violation with its witness."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol

from pydantic import JsonValue


@dataclass(frozen=True)
class Violation:
    """One breach of an invariant.

    ``because`` is one sentence naming the events or messages involved; ``witness`` holds only
    those (as JSON data); ``diff`` is a deepdiff of expected against actual where values differ;
    ``kind`` names which of its law's distinct ways this is (``invariants.ways``), set where the
    law decides it and never derived from the sentence, so that it holds while a witness
    shrinks ("" for a law of one way).
    """

    invariant: str
    because: str
    witness: tuple[JsonValue, ...] = ()
    diff: dict[str, Any] | None = None
    kind: str = ""

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


class Witnessed(Protocol):
    """What a witness can hold: a model that dumps itself as JSON data."""

    def to_json_data(self) -> dict[str, Any]:
        """The model as JSON-shaped data."""
        ...


def witness(*models: Witnessed | None) -> tuple[JsonValue, ...]:
    """A violation's witness: the JSON data of the models it names, the absent ones skipped."""
    return tuple(model.to_json_data() for model in models if model is not None)


@dataclass(frozen=True)
class Review:
    """A ruling on meaning the reading could not settle: an item for a reader, or a judge.

    It is never a violation and never a pass: ``fact`` (of ``kind``: goal, constraint,
    superseded or invented), the output ``sentence`` the ruling rests on (``message`` is its
    output index), the ruling it ``leans`` to, and the ``reason`` the reading is unsure.
    """

    invariant: str
    fact: str
    kind: str
    leans: str
    reason: str
    sentence: str | None = None
    message: int | None = None

    @property
    def leans_to_loss(self) -> bool:
        """Whether the ruling it leans to is one its law fails on."""
        return self.leans not in FAITHFUL_LEANS

    def to_json_data(self) -> dict[str, Any]:
        """The item as JSON data."""
        data: dict[str, Any] = {
            "invariant": self.invariant,
            "fact": self.fact,
            "kind": self.kind,
            "leans": self.leans,
            "reason": self.reason,
        }
        if self.sentence is not None:
            data["sentence"] = self.sentence
        if self.message is not None:
            data["message"] = self.message
        return data


FAITHFUL_LEANS = frozenset({"kept", "reworded", "retired", "none"})
"""The rulings a review item may lean to that say the fact survived as it should."""


@dataclass(frozen=True)
class Finding:
    """The outcome of one checker on one example.

    ``violations`` rest on certain evidence; ``review`` holds the rulings on meaning the
    reading could not settle, which are neither a violation nor a pass.
    """

    invariant: str
    exercised: bool
    violations: tuple[Violation, ...] = ()
    review: tuple[Review, ...] = ()

    @property
    def holds(self) -> bool:
        """Whether no violation was found (items for review may remain: ``needs_review``)."""
        return not self.violations

    @property
    def needs_review(self) -> bool:
        """Whether no violation was found but some ruling waits for a reader or a judge."""
        return not self.violations and bool(self.review)


_MAX_DIFF_SITES = 5


def _differing(expected: Any, actual: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """The smallest subtrees where two JSON values differ, with their deepdiff paths."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in dict.fromkeys([*expected, *actual]):
            left, right = expected.get(key, _ABSENT), actual.get(key, _ABSENT)
            if left == right:
                continue
            if left is _ABSENT or right is _ABSENT:
                # Keep deepdiff's own "item added/removed" wording, on a one-key dict.
                yield (
                    path,
                    {} if left is _ABSENT else {key: left},
                    {} if right is _ABSENT else {key: right},
                )
            else:
                yield from _differing(left, right, f"{path}[{key!r}]")
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            if left != right:
                yield from _differing(left, right, f"{path}[{index}]")
    else:
        yield path, expected, actual


_ABSENT = object()


def value_diff(expected: Any, actual: Any) -> dict[str, Any] | None:
    """A JSON-safe deepdiff of two JSON-shaped values, or None when they are equal.

    deepdiff runs only on the few subtrees that differ (at most five), so that a diff of a
    long history stays cheap; its paths are rewritten to start from the whole value.
    """
    if expected == actual:
        return None
    # Imported on the first diff, not with the laws: deepdiff imports numpy when it is
    # installed, and with numpy loaded Hypothesis saves and restores numpy's random state around
    # every example (a few per cent of a run that finds nothing to diff).
    from deepdiff import DeepDiff

    merged: dict[str, Any] = {}
    for path, left, right in islice(_differing(expected, actual, "root"), _MAX_DIFF_SITES):
        difference = DeepDiff(left, right, ignore_order=False, verbose_level=2)
        for kind, entries in json.loads(difference.to_json()).items():
            if isinstance(entries, dict):
                bucket = merged.setdefault(kind, {})
                for where, detail in entries.items():
                    bucket[path + where.removeprefix("root")] = detail
            else:
                merged.setdefault(kind, []).extend(
                    path + str(where).removeprefix("root") for where in entries
                )
    return merged or None
