"""The catalogue of invariants: stable ids, the view each applies to, a statement, a checker."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from invariants.errors import CompactcheckError
from invariants.facts import Facts
from invariants.verdict import Finding

View = Literal["snapshot", "session", "messages"]
VIEWS: tuple[View, ...] = get_args(View)

Check = Callable[[Any, Any, Facts], Finding]


class UnknownInvariantError(CompactcheckError, ValueError):
    """An invariant id that the catalogue does not have for a view."""


@dataclass(frozen=True)
class Invariant:
    """One law: a stable snake_case id (never renamed), its view, a statement and its checker.

    The checker is a pure function of (before, after, facts), linear in history length, that
    never mutates its input and never raises to report a violation.
    """

    id: str
    view: View
    statement: str
    check: Check
    # Judged only against a declared budget; without one the law is not applicable.
    requires_budget: bool = False
    # Judged only on calls that changed the history: an unchanged answer keeps every content law
    # trivially. Size laws say False, because an unchanged answer over budget breaks them.
    requires_change: bool = True


_REGISTRY: dict[tuple[View, str], Invariant] = {}


def invariant(
    view: View,
    id: str,
    statement: str,
    *,
    requires_budget: bool = False,
    requires_change: bool = True,
) -> Callable[[Check], Check]:
    """Register a checker under a stable id for one view."""

    def register(check: Check) -> Check:
        key = (view, id)
        if key in _REGISTRY:
            raise ValueError(f"invariant {id!r} is registered twice for the {view} view")
        _REGISTRY[key] = Invariant(id, view, statement, check, requires_budget, requires_change)
        return check

    return register


def catalogue(view: View | None = None) -> list[Invariant]:
    """Every registered invariant, of one view or of all, in registration order.

    An unknown view raises UnknownInvariantError: a typo must not select nothing silently.
    """
    if view is not None and view not in VIEWS:
        raise UnknownInvariantError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    _load_laws()
    return [law for (law_view, _), law in _REGISTRY.items() if view in (None, law_view)]


def select(
    view: View, include: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> list[Invariant]:
    """The invariants of a view, narrowed by ids to include and to exclude.

    An id that the view does not have raises UnknownInvariantError naming the ids it does have.
    """
    laws = catalogue(view)
    known = {law.id for law in laws}
    wanted = list(include) if include is not None else None
    unwanted = list(exclude)
    unknown = [name for name in [*(wanted or []), *unwanted] if name not in known]
    if unknown:
        raise UnknownInvariantError(
            f"unknown invariant(s) for the {view} view: {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))}"
        )
    return [law for law in laws if (wanted is None or law.id in wanted) and law.id not in unwanted]


def run_checks(laws: Sequence[Invariant], before: Any, after: Any, facts: Facts) -> list[Finding]:
    """Every law's finding on one example, in catalogue order."""
    return [law.check(before, after, facts) for law in laws]


def _load_laws() -> None:
    # The laws register themselves on import; importing here keeps the catalogue complete
    # whichever module a caller imported first.
    import invariants.laws  # noqa: F401
