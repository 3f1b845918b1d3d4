"""The repair of ``order_preserved``: a new unit (a summary, a note) moved to where input units
were dropped, the gap it stands for.

A kept unit out of its input order is not moved: which of two kept units is misplaced is the
compactor's choice, not a mechanical one.
"""

from __future__ import annotations

from itertools import pairwise

from compactcheck.invariants import Facts
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, data, matched


def _gaps(kept: list[int | None], inputs: int) -> list[int]:
    """Output positions where a new unit stands for dropped input units."""
    places = [(j, at) for j, at in enumerate(kept) if at is not None]
    gaps = []
    if places and places[0][1] > 0:
        gaps.append(places[0][0])
    for (_, low), (j, high) in pairwise(places):
        if high - low > 1:
            gaps.append(j)
    if places and places[-1][1] < inputs - 1:
        gaps.append(places[-1][0] + 1)
    return gaps


def _misplaced(kept: list[int | None], inputs: int) -> list[int]:
    """New units between two kept units with nothing dropped between them."""
    found = []
    for j, at in enumerate(kept):
        if at is not None:
            continue
        low = next((a for a in reversed(kept[:j]) if a is not None), -1)
        high = next((a for a in kept[j + 1 :] if a is not None), inputs)
        if high - low <= 1:
            found.append(j)
    return found


def move_notes_into_gaps(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Move each new unit that stands where nothing was dropped to the nearest place where
    input units were."""
    del facts
    kept = matched(before, after)
    if all(at is not None for at in kept) or len([a for a in kept if a is not None]) == len(
        before.units
    ):
        return None
    stray = _misplaced(kept, len(before.units))
    if not stray:
        return None
    moving = [after.units[j] for j in stray]
    rest: list[Unit] = [u for j, u in enumerate(after.units) if j not in set(stray)]
    rest_kept = [at for j, at in enumerate(kept) if j not in set(stray)]
    gaps = _gaps(rest_kept, len(before.units))
    if not gaps:
        return None
    first = stray[0] - sum(1 for j in stray if j < stray[0])
    at = min(gaps, key=lambda gap: abs(gap - first))
    return Edit(
        after.with_units([*rest[:at], *moving, *rest[at:]]),
        "moved the new message(s) to where input messages were dropped",
        removed=data(*moving),
        added=data(*moving),
    )


__all__ = ["move_notes_into_gaps"]
