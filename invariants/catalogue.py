"""The catalogue of laws: every view's laws in one list, looked up by view and by id."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal, TypeVar, overload

from compactcheck.invariants.errors import CompactcheckError
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.formats import CHAT
from compactcheck.invariants.law import VIEWS, Invariant, View, invariant
from compactcheck.invariants.laws import messages, session, snapshot
from compactcheck.invariants.laws.messages import MessagesLaw
from compactcheck.invariants.laws.session import SessionLaw
from compactcheck.invariants.laws.snapshot import SnapshotLaw
from compactcheck.invariants.verdict import Finding

__all__ = [
    "ALL_FORMATS",
    "VIEWS",
    "Invariant",
    "MessagesLaw",
    "SessionLaw",
    "SnapshotLaw",
    "UnknownInvariantError",
    "View",
    "catalogue",
    "invariant",
    "known_ids_text",
    "run_checks",
    "select",
]

# Every format at once, where a listing or a check of ids needs the whole messages catalogue.
ALL_FORMATS = "all"

_B = TypeVar("_B")
_A = TypeVar("_A")


class UnknownInvariantError(CompactcheckError, ValueError):
    """A view, or an invariant id of a view, that the catalogue does not have."""


def known_ids_text(unknown: Sequence[str], known: Iterable[str]) -> str:
    """The ids a typo could have meant, closest first, then every other known id.

    A long list is cut where it is printed: the ids most likely meant must come before the cut.
    """
    listed = sorted(known)
    matches = [difflib.get_close_matches(name, listed, n=3, cutoff=0.6) for name in unknown]
    best = [found[0] for found in matches if found]
    guess = f"did you mean {', '.join(dict.fromkeys(best))}? " if best else ""
    close = [match for found in matches for match in found]
    return f"{guess}known: {', '.join(dict.fromkeys([*close, *listed]))}"


# Catalogue order, which reports and listings follow: snapshot, messages, session.
_LAWS: dict[View, tuple[Invariant, ...]] = {
    "snapshot": snapshot.LAWS,
    "messages": (*messages.LAWS, *messages.FORMAT_LAWS),
    "session": session.LAWS,
}


@overload
def catalogue(view: Literal["snapshot"], format: str = CHAT) -> list[SnapshotLaw]: ...
@overload
def catalogue(view: Literal["messages"], format: str = CHAT) -> list[MessagesLaw]: ...
@overload
def catalogue(view: Literal["session"], format: str = CHAT) -> list[SessionLaw]: ...
@overload
def catalogue(view: View | None = None, format: str = CHAT) -> list[Invariant]: ...
def catalogue(view: View | None = None, format: str = CHAT) -> list[Invariant]:
    """Every invariant, of one view or of all, in catalogue order.

    The messages view's laws are those that judge histories of ``format``: the laws of every
    format (which read a chat reading of any format) and that format's structural laws; by
    default chat completions, whose message lists every messages law but a structural one
    takes. ``format=ALL_FORMATS`` lists them all. An unknown view raises
    UnknownInvariantError: a typo must not select nothing silently.
    """
    if view is None:
        laws = [law for each in _LAWS.values() for law in each]
    elif view not in VIEWS:
        raise UnknownInvariantError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    else:
        laws = list(_LAWS[view])
    if format == ALL_FORMATS:
        return laws
    return [law for law in laws if law.judges_format(format)]


@overload
def select(
    view: Literal["snapshot"],
    include: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    format: str = CHAT,
) -> list[SnapshotLaw]: ...
@overload
def select(
    view: Literal["messages"],
    include: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    format: str = CHAT,
) -> list[MessagesLaw]: ...
@overload
def select(
    view: Literal["session"],
    include: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    format: str = CHAT,
) -> list[SessionLaw]: ...
@overload
def select(
    view: View,
    include: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    format: str = CHAT,
) -> list[Invariant]: ...
def select(
    view: View,
    include: Iterable[str] | None = None,
    exclude: Iterable[str] = (),
    format: str = CHAT,
) -> list[Invariant]:
    """The invariants of a view (those judging ``format``), narrowed by ids to include and to
    exclude.

    An id that the view does not have in any format, another view's included, raises
    UnknownInvariantError naming the ids it does have.
    """
    known = {law.id for law in catalogue(view, ALL_FORMATS)}
    laws = catalogue(view, format)
    wanted = list(include) if include is not None else None
    unwanted = list(exclude)
    unknown = [name for name in [*(wanted or []), *unwanted] if name not in known]
    if unknown:
        raise UnknownInvariantError(
            f"unknown invariant(s) for the {view} view: {', '.join(map(repr, unknown))}; "
            + known_ids_text(unknown, known)
        )
    return [law for law in laws if (wanted is None or law.id in wanted) and law.id not in unwanted]


def run_checks(
    laws: Sequence[Invariant[_B, _A]], before: _B, after: _A, facts: Facts
) -> list[Finding]:
    """Every law's finding on one example, in catalogue order."""
    return [law.check(before, after, facts) for law in laws]
