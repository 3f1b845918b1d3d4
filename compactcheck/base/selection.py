"""Which laws a run judges: the one place where --invariants and --exclude-invariants are read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from compactcheck.base.call_law import CALL_ANSWERED, call_law, known_ids
from compactcheck.invariants import Invariant, UnknownInvariantError, View, catalogue, select
from compactcheck.invariants.catalogue import ALL_FORMATS, known_ids_text
from compactcheck.invariants.formats import CHAT, Format


@dataclass(frozen=True)
class Selection:
    """The ids a user asked for (None: every law) and the ids they excluded."""

    include: Sequence[str] | None = None
    exclude: Sequence[str] = ()

    def check(self, views: Iterable[View] | None = None) -> None:
        """UnknownInvariantError, naming the ids, for any id none of ``views`` has."""
        chosen = None if views is None else sorted(set(views))
        known = known_ids(chosen)
        unknown = [name for name in [*(self.include or ()), *self.exclude] if name not in known]
        if unknown:
            where = "any view" if chosen is None else f"the {', '.join(chosen)} view(s)"
            raise UnknownInvariantError(
                f"unknown invariant(s) {', '.join(unknown)} for {where}; "
                f"{known_ids_text(unknown, known)} (`compactcheck invariants` lists them)"
            )

    def laws(self, view: View, format: Format = CHAT) -> list[Invariant]:
        """The catalogue's laws of ``view`` this selection keeps (ids of other views ignored),
        those of one wire format: the laws of every format and the format's structural ones."""
        known = {law.id for law in catalogue(view, ALL_FORMATS)}
        include = None if self.include is None else [i for i in self.include if i in known]
        exclude = [i for i in self.exclude if i in known]
        return select(view, include, exclude, format)

    def judging(self, view: View, format: Format = CHAT) -> list[Invariant]:
        """What a run judges on ``view``: the call law first, then the selected laws.

        A crash is a finding whatever laws were selected, unless the user excluded the call law
        by name.
        """
        calls = [call_law(view)] if CALL_ANSWERED not in self.exclude else []
        return [*calls, *self.laws(view, format)]
