"""The conformance level a target's results reach (see ``invariants.levels``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compactcheck.report.model import InvariantResult
from invariants.levels import LEVELS, level_of


def _holds(result: InvariantResult) -> bool:
    if result.verdict == "pass":
        return True
    # A budget law with no budget declared promises nothing either way.
    return result.verdict == "skipped" and (result.because or "").startswith("not applicable")


def level_reached(results: Sequence[InvariantResult]) -> int | None:
    """The highest N such that every law of levels 1..N held, unwaived, and one of each passed.

    A waived law is not promised, so its level is not reached however it fared (it is shown as
    waived, never as a violation, and never counts toward the level). None when the results
    carry no levels (a report written before them).
    """
    if results and all(result.level == 0 for result in results):
        return None
    reached = 0
    for level in sorted(LEVELS):
        laws = [r for r in results if r.level == level]
        promised = all(r.waived is None and _holds(r) for r in laws)
        if not laws or not promised or not any(r.verdict == "pass" for r in laws):
            break
        reached = level
    return reached


def accepted_waivers(
    waivers: Mapping[str, str], structural: Mapping[str, bool]
) -> tuple[dict[str, str], list[str]]:
    """The waivers that stand, and a line for each refused one (a law of level 1)."""
    kept: dict[str, str] = {}
    refused: list[str] = []
    for invariant, reason in waivers.items():
        if level_of(invariant, structural.get(invariant, False)) == 1:
            refused.append(
                f"waiver of {invariant} refused: a law of level 1 ({LEVELS[1]}) cannot be waived"
            )
        else:
            kept[invariant] = str(reason)
    return kept, refused


def level_text(level: int | None) -> str | None:
    """For example "level 2 of 3 (the agent can carry on)"; None without a level."""
    if level is None:
        return None
    if level == 0:
        return f"level 0 of {len(LEVELS)} (not even: {LEVELS[1]})"
    return f"level {level} of {len(LEVELS)} ({LEVELS[level]})"


__all__ = ["accepted_waivers", "level_reached", "level_text"]
