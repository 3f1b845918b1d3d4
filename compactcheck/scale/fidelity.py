"""Fidelity over shards: the measures of several shards of one run pooled, as if of one run."""

from __future__ import annotations

import math
from collections.abc import Sequence

from compactcheck.invariants.fidelity import KINDS
from compactcheck.report.model import Fidelity, FidelityRound, FidelitySide, Spread

# Every measure a fidelity round may hold, in the order reports show them.
MEASURES = (*KINDS, "reasserted", "pruned", "compression")


def _pooled(spreads: Sequence[Spread]) -> Spread:
    """One spread of the union of the compactions several spreads summarise (exact pooling)."""
    n = sum(spread.n for spread in spreads)
    mean = math.fsum(spread.n * spread.mean for spread in spreads) / n
    variance = (
        math.fsum(spread.n * (spread.sd**2 + (spread.mean - mean) ** 2) for spread in spreads) / n
    )
    return Spread(
        mean=round(mean, 4),
        low=min(spread.low for spread in spreads),
        high=max(spread.high for spread in spreads),
        sd=round(math.sqrt(variance), 4),
        n=n,
    )


def _pooled_round(number: int, rounds: Sequence[FidelityRound]) -> FidelityRound:
    measures: dict[str, Spread] = {}
    for kind in MEASURES:
        spreads = [r.measures[kind] for r in rounds if kind in r.measures]
        if spreads:
            measures[kind] = _pooled(spreads)
    return FidelityRound(
        round=number, compactions=sum(r.compactions for r in rounds), measures=measures
    )


def _pooled_side(sides: Sequence[FidelitySide]) -> FidelitySide:
    numbers = sorted({r.round for side in sides for r in side.rounds})
    return FidelitySide(
        overall=_pooled_round(0, [side.overall for side in sides]),
        rounds=[
            _pooled_round(number, [r for side in sides for r in side.rounds if r.round == number])
            for number in numbers
        ],
    )


def merged(fidelities: Sequence[Fidelity | None]) -> Fidelity | None:
    """The fidelity of several shards of one target run, as if measured in one run."""
    present = [fidelity for fidelity in fidelities if fidelity is not None]
    if not present:
        return None
    references = [f.reference for f in present if f.reference is not None]
    first = present[0]
    return Fidelity(
        counter=first.counter,
        target=_pooled_side([f.target for f in present]),
        reference=_pooled_side(references) if references else None,
        reference_target=first.reference_target,
        reference_note=first.reference_note,
    )
