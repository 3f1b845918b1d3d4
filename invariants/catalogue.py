"""The catalogue of laws: every view's laws in one list, looked up by view and by id."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, TypeVar, overload

from invariants.errors import CompactcheckError
from invariants.facts import Facts
from invariants.law import VIEWS, Invariant, View, invariant
from invariants.laws import messages, session, snapshot
from invariants.laws.messages import MessagesLaw
from invariants.laws.session import SessionLaw
from invariants.laws.snapshot import SnapshotLaw
from invariants.verdict import Finding

__all__ = [
    "VIEWS",
    "Invariant",
    "MessagesLaw",
    "SessionLaw",
    "SnapshotLaw",
    "UnknownInvariantError",
    "View",
    "catalogue",
    "invariant",
    "run_checks",
    "select",
]

_B = TypeVar("_B")
_A = TypeVar("_A")


class UnknownInvariantError(CompactcheckError, ValueError):
    """A view, or an invariant id of a view, that the catalogue does not have."""


# Catalogue order, which reports and listings follow: snapshot, messages, session.
_LAWS: dict[View, tuple[Invariant, ...]] = {
    "snapshot": snapshot.LAWS,
    "messages": messages.LAWS,
    "session": session.LAWS,
}


@overload
def catalogue(view: Literal["snapshot"]) -> list[SnapshotLaw]: ...
@overload
def catalogue(view: Literal["messages"]) -> list[MessagesLaw]: ...
@overload
def catalogue(view: Literal["session"]) -> list[SessionLaw]: ...
@overload
def catalogue(view: View | None = None) -> list[Invariant]: ...
def catalogue(view: View | None = None) -> list[Invariant]:
    """Every invariant, of one view or of all, in catalogue order.

    An unknown view raises UnknownInvariantError: a typo must not select nothing silently.
    """
    if view is None:
        return [law for laws in _LAWS.values() for law in laws]
    if view not in VIEWS:
        raise UnknownInvariantError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    return list(_LAWS[view])


@overload
def select(
    view: Literal["snapshot"], include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[SnapshotLaw]: ...
@overload
def select(
    view: Literal["messages"], include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[MessagesLaw]: ...
@overload
def select(
    view: Literal["session"], include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[SessionLaw]: ...
@overload
def select(
    view: View, include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[Invariant]: ...
def select(
    view: View, include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[Invariant]:
    """The invariants of a view, narrowed by ids to include and to exclude.

    An id that the view does not have, another view's included, raises UnknownInvariantError
    naming the ids it does have.
    """
    laws = catalogue(view)
    known = {law.id for law in laws}
    wanted = list(include) if include is not None else None
    unwanted = list(exclude)
    unknown = [name for name in [*(wanted or []), *unwanted] if name not in known]
    if unknown:
        raise UnknownInvariantError(
            f"unknown invariant(s) for the {view} view: {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(sorted(known))}"
        )
    return [law for law in laws if (wanted is None or law.id in wanted) and law.id not in unwanted]


def run_checks(
    laws: Sequence[Invariant[_B, _A]], before: _B, after: _A, facts: Facts
) -> list[Finding]:
    """Every law's finding on one example, in catalogue order."""
    return [law.check(before, after, facts) for law in laws]
