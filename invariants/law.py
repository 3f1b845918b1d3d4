"""What one law is: a stable id, the view it judges, a statement and a pure checker."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, get_args

# typing.TypeVar takes a default only from Python 3.13 on.
from typing_extensions import TypeVar

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.verdict import Finding

View = Literal["snapshot", "session", "messages"]
VIEWS: tuple[View, ...] = get_args(View)

# What a law reads before and after compaction: its view's own models. Contravariant because a
# law that accepts a wider type can stand wherever a narrower one is judged; the defaults let
# code that lists laws of several views write a plain ``Invariant``.
Before = TypeVar("Before", contravariant=True, default=Any)
After = TypeVar("After", contravariant=True, default=Any)

_B = TypeVar("_B")
_A = TypeVar("_A")


@dataclass(frozen=True)
class Invariant(Generic[Before, After]):
    """One law: a stable snake_case id (never renamed), its view, a statement and its checker.

    The checker is a pure function of (before, after, facts), linear in history length, that
    never mutates its input and never raises to report a violation.
    """

    id: str
    view: View
    statement: str
    check: Callable[[Before, After, Facts], Finding]
    # Judged only against a declared budget; without one the law is not applicable.
    requires_budget: bool = False
    # Judged only on calls that changed the history: an unchanged answer keeps every content law
    # trivially. Size laws say False, because an unchanged answer over budget breaks them.
    requires_change: bool = True
    # The wire formats the law judges (messages view): empty for a law of every format, which
    # reads any format through one chat reading; a format's structural law reads its own
    # parsed request and names the provider rule it mirrors, with the error that rule gives.
    formats: tuple[str, ...] = ()
    mirrors: str = ""
    # The law of every format this format's law says again in the provider's terms (an orphaned
    # tool result breaks both): a report shows a cause both find once, under both names.
    restates: str = ""
    # The kinds its violations are given (``invariants.ways``), in the order its reports show
    # them whichever a run met first; empty for a law that breaks in one way.
    ways: tuple[str, ...] = ()

    def judges_format(self, format: str) -> bool:
        """Whether the law applies to histories of ``format``."""
        return not self.formats or format in self.formats


def invariant(
    view: View,
    id: str,
    statement: str,
    *,
    requires_budget: bool = False,
    requires_change: bool = True,
    formats: tuple[str, ...] = (),
    mirrors: str = "",
    ways: tuple[str, ...] = (),
) -> Callable[[Callable[[_B, _A, Facts], Finding]], Invariant[_B, _A]]:
    """Make a checker a law of one view: the decorated name is bound to the law, not the function.

    Nothing is registered: each view's package lists its laws, and the catalogue lists those.
    """

    def declare(check: Callable[[_B, _A, Facts], Finding]) -> Invariant[_B, _A]:
        return Invariant(
            id,
            view,
            statement,
            check,
            requires_budget,
            requires_change,
            formats,
            mirrors,
            ways=ways,
        )

    return declare
