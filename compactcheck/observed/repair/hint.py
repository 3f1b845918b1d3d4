"""The fix hint of a counterexample: the repair that would have made its answer lawful.

Made where a report's witness is made, from the failing round as the run judged it (its input,
its answer, its facts, the run's laws), so that a reader sees the fix beside the bug.
"""

from __future__ import annotations

from typing import Any

from compactcheck.base.selection import Selection
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.observed.judging import PairError
from compactcheck.observed.repair.mend import Mended, repair
from compactcheck.report.model import Fix, FixChange


def _history(payload: Any) -> Any:
    """The history a round's input or output holds (chat messages, or a provider request)."""
    if isinstance(payload, dict):
        for key in ("request", "messages"):
            if key in payload:
                return payload[key]
    return payload


def fix_of(mended: Mended) -> Fix:
    """A mender's outcome as the report's fix."""
    return Fix(
        lawful=mended.mends_every_law,
        changes=[
            FixChange(
                law=change.law,
                repair=change.repair,
                what=change.what,
                added=list(change.added),
                removed=list(change.removed),
                size_before=change.size_before,
                size_after=change.size_after,
            )
            for change in mended.changes
        ],
        note=mended.reason,
        counter=mended.counter,
        size_input=mended.size_input,
        size_answer=mended.size_answer,
        size_repaired=mended.size_repaired,
    )


def fix_hint(outcome: RoundOutcome, format: Format, selection: Selection) -> Fix | None:
    """The fix of a messages round that broke a law; None for another view or no answer."""
    if outcome.facts is None or not outcome.answered or outcome.output is None:
        return None
    before, after = _history(outcome.input), _history(outcome.output)
    try:
        mended = repair(before, after, outcome.facts, format=format or CHAT, selection=selection)
    except PairError:
        return None
    return fix_of(mended)


__all__ = ["fix_hint", "fix_of"]
