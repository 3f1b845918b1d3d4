"""The fidelity table as every renderer shows it: a row per measure beside the reference's, a
row per ruling, and where a target keeps less than the reference."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.report.model import Fidelity, Spread, TargetReport

# The fidelity measures by kind, in report order, as every renderer names them.
FIDELITY_LABELS = {
    "must_keep": "must-keep facts kept",
    "constraints": "current constraints kept",
    "pending": "pending steps kept",
    "changed_files": "changed files kept",
    "reasserted": "superseded reasserted",
    "pruned": "result text pruned",
    "compression": "size out / size in",
}


def measure_text(kind: str, spread: Spread | None) -> str:
    """A measure's mean as a reader takes it in: a percentage, or a ratio for compression."""
    if spread is None:
        return "-"
    if kind == "compression":
        return f"{spread.mean:.2f}"
    return f"{spread.mean * 100:.0f}%"


def range_text(kind: str, spread: Spread) -> str:
    """A measure's lowest and highest value over the compactions, e.g. "0-100%"."""
    if kind == "compression":
        return f"{spread.low:.2f}-{spread.high:.2f}"
    return f"{spread.low * 100:.0f}-{spread.high * 100:.0f}%"


@dataclass(frozen=True)
class FidelityRow:
    """One measure of a target beside the reference's: mean, range, count, by round."""

    kind: str
    label: str
    mean: str
    range: str
    n: int
    sd: str
    reference: str
    by_round: list[str]


def fidelity_rows(target: TargetReport) -> list[FidelityRow]:
    """The rows of a target's fidelity table (empty when nothing was measured)."""
    fidelity = target.fidelity
    if fidelity is None:
        return []
    theirs = fidelity.reference.overall.measures if fidelity.reference is not None else {}
    rows: list[FidelityRow] = []
    for kind, label in FIDELITY_LABELS.items():
        spread = fidelity.target.overall.measures.get(kind)
        if spread is None:
            continue
        sd = f"{spread.sd:.2f}" if kind == "compression" else f"{spread.sd * 100:.0f}%"
        rows.append(
            FidelityRow(
                kind,
                label,
                measure_text(kind, spread),
                range_text(kind, spread),
                spread.n,
                sd,
                measure_text(kind, theirs.get(kind)) if fidelity.reference is not None else "",
                [measure_text(kind, r.measures.get(kind)) for r in fidelity.target.rounds],
            )
        )
    rows.extend(_ruling_rows(fidelity))
    return rows


def _ruling_rows(fidelity: Fidelity) -> list[FidelityRow]:
    """A row per ruling the goals and constraints got: how many, over the run and by round."""
    ours = fidelity.target.overall.rulings
    theirs = fidelity.reference.overall.rulings if fidelity.reference is not None else {}
    rows: list[FidelityRow] = []
    for ruling, count in ours.items():
        rows.append(
            FidelityRow(
                f"ruling:{ruling}",
                f"facts ruled {ruling}",
                str(count),
                "",
                count,
                "",
                str(theirs.get(ruling, 0)) if fidelity.reference is not None else "",
                [str(r.rulings.get(ruling, 0)) for r in fidelity.target.rounds],
            )
        )
    return rows


def fidelity_gaps(target: TargetReport) -> dict[str, str]:
    """Where the target keeps less than the reference on the same inputs, widest gap first.

    By kind, a line such as "changed files kept 58% (100%)": this target's mean, then the
    reference's.
    """
    fidelity = target.fidelity
    if fidelity is None or fidelity.reference is None:
        return {}
    ours, theirs = fidelity.target.overall.measures, fidelity.reference.overall.measures
    gaps: list[tuple[float, str, str]] = []
    for kind, label in FIDELITY_LABELS.items():
        if kind == "compression" or kind not in ours or kind not in theirs:
            continue
        gap = ours[kind].mean - theirs[kind].mean
        worse = gap > 0.005 if kind in ("reasserted", "pruned") else gap < -0.005
        if worse:
            gaps.append(
                (
                    -abs(gap),
                    kind,
                    f"{label} {measure_text(kind, ours[kind])} "
                    f"({measure_text(kind, theirs[kind])})",
                )
            )
    return {kind: text for _, kind, text in sorted(gaps)}
