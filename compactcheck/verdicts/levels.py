"""The conformance level a target's results reach (see ``compactcheck.invariants.levels``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from compactcheck.invariants.levels import LEVELS, PROVIDER_RULES, level_of
from compactcheck.report.model import InvariantResult, TargetReport
from compactcheck.verdicts.counts import is_not_applicable


def _passed(result: InvariantResult, strict_review: bool) -> bool:
    # A law that held beside items for review held, unless review is strict.
    return result.verdict == "pass" or (result.verdict == "review" and not strict_review)


def _holds(result: InvariantResult, strict_review: bool) -> bool:
    # A budget law with no budget declared promises nothing either way.
    return _passed(result, strict_review) or is_not_applicable(result)


def level_reached(results: Sequence[InvariantResult], strict_review: bool = False) -> int | None:
    """The highest N such that every law of levels 1..N held, unwaived, and one of each passed.

    A law with items for review held (its verdict is review), unless ``strict_review``: then it
    holds a level as a violation does. A waived law is not promised, so its level is not reached
    however it fared (it is shown as waived, never as a violation, and never counts toward the
    level). None when the results carry no levels (a report written before them).
    """
    if results and all(result.level == 0 for result in results):
        return None
    reached = 0
    for level in sorted(LEVELS):
        laws = [r for r in results if r.level == level]
        promised = all(r.waived is None and _holds(r, strict_review) for r in laws)
        if not laws or not promised or not any(_passed(r, strict_review) for r in laws):
            break
        reached = level
    return reached


def accepted_waivers(
    waivers: Mapping[str, str], structural: Mapping[str, bool], format: str = "openai-chat"
) -> tuple[dict[str, str], list[str]]:
    """The waivers that stand, and a line for each refused one (a law of level 1 in ``format``)."""
    kept: dict[str, str] = {}
    refused: list[str] = []
    for invariant, reason in waivers.items():
        if level_of(invariant, structural.get(invariant, False), format) == 1:
            refused.append(
                f"waiver of {invariant} refused: a law of level 1 ({LEVELS[1]}) cannot be waived"
            )
        else:
            kept[invariant] = str(reason)
    return kept, refused


def level_text(
    level: int | None, results: Sequence[InvariantResult] = (), format: str = ""
) -> str | None:
    """For example "level 1 of 3 (the provider accepts it); level 2 broken"; None without one.

    With the results, it says why the next level is not reached: a law of it broke, it is
    waived (not promised), or nothing judged it (every call unchanged, errored or unexercised):
    level 0 of a target that never compacted is not a provider's rejection. With the format,
    a broken law whose level depends on it names what that format's provider does.
    """
    if level is None:
        return None
    reached = f"level {level} of {len(LEVELS)}" + (f" ({LEVELS[level]})" if level else "")
    nxt = level + 1
    if nxt not in LEVELS or not results:
        return reached
    laws = [r for r in results if r.level == nxt]
    if any(r.verdict == "violation" for r in laws):
        why = "broken"
        rules = [
            f"{r.invariant}: {PROVIDER_RULES[(r.invariant, format)]}"
            for r in laws
            if r.verdict == "violation" and (r.invariant, format) in PROVIDER_RULES
        ]
        if rules:
            why += "; " + "; ".join(rules)
    elif any(r.waived is not None for r in laws):
        why = "not promised (waived)"
    elif any(r.verdict == "review" for r in laws):
        why = "left for review (--strict-review: an item for review holds no level)"
    else:
        why = "not judged (no law of it was exercised, or a judgement errored)"
    return f"{reached}; level {nxt} ({LEVELS[nxt]}) {why}"


# A mean size out / size in above this is shown beside the level: the history grew.
GROWTH = 1.0


def growth_warning(target: TargetReport) -> str | None:
    """A warning when the target's compactions made the history larger on average; else None.

    Not a law: on one call a summary may be longer than the short span it replaces (the
    reference's own compactions reach 2x on small spans), and a summariser driven by the local
    echo model grows by construction; ``progress`` judges growth where it matters, against a
    declared budget. The mean over a run says what a user should see beside the level.
    """
    fidelity = target.fidelity
    if fidelity is None:
        return None
    spread = fidelity.target.overall.measures.get("compression")
    if spread is None or spread.mean <= GROWTH:
        return None
    return (
        f"warning: compaction made the history larger on average (size out / size in "
        f"{spread.mean:.2f} over {spread.n} compactions; declare --budget N to judge it by "
        "progress)"
    )


def target_level_text(target: TargetReport) -> str | None:
    """A target's level as reports show it: its format's provider named, growth warned of."""
    text = level_text(target.level, target.results, target.format)
    warning = growth_warning(target)
    if text is None or warning is None:
        return text
    return f"{text}; {warning}"


__all__ = [
    "accepted_waivers",
    "growth_warning",
    "level_reached",
    "level_text",
    "target_level_text",
]
