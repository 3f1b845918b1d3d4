"""What a repair proposes and what the mender records of it: the edit, and the change made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import JsonValue

from compactcheck.invariants import Facts
from compactcheck.observed.repair.side import Side


@dataclass(frozen=True)
class Edit:
    """A repair's proposal: the answer as it would be, and what it added or took out."""

    side: Side
    what: str
    added: tuple[JsonValue, ...] = ()
    removed: tuple[JsonValue, ...] = ()


Repair = Callable[[Side, Side, Facts], Edit | None]
"""A repair: a pure function of the input, the answer and the facts (each side knows its
format) that proposes one edit of the answer, or None when it has nothing to mend."""


@dataclass(frozen=True)
class Change:
    """One repair made to an answer: the law it mends, what it did, and the size it cost."""

    law: str
    repair: str
    what: str
    added: tuple[JsonValue, ...] = ()
    removed: tuple[JsonValue, ...] = ()
    # The answer's size before and after this change, in the mender's counter.
    size_before: int = 0
    size_after: int = 0
    counter: str = "characters"

    def line(self) -> str:
        """The change in one line: the law, what was done, and the size it cost."""
        return (
            f"{self.law}: {self.what} ({self.repair}; {self.size_before} -> {self.size_after} "
            f"{self.counter})"
        )


__all__ = ["Change", "Edit", "Repair"]
