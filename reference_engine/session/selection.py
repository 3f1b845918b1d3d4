"""Range selection: the largest head-anchored balanced span that leaves a priced tail behind."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.reference_engine.session.errors import SurfaceChangedError
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.meter import Measurement
from compactcheck.reference_engine.session.pairing import ToolPairing


@dataclass(frozen=True)
class SurfaceRange:
    """An inclusive range of surface positions, named by the seqs at its ends."""

    start: int
    end: int


def select_compactable_range(
    session: Session, measurement: Measurement, retain_tokens: int, pairing: ToolPairing
) -> SurfaceRange | None:
    """Pick [head .. cut) so the kept tail costs at least retain_tokens and no pair is split."""
    nodes = measurement.nodes
    if not nodes:
        return None
    if measurement.seqs() != session.surface_nodes:
        raise SurfaceChangedError(
            "token-meter surface does not match the current session surface; measure again "
            "before selecting a range"
        )
    kept = 0
    keep_from = len(nodes)
    while keep_from > 0:
        keep_from -= 1
        kept += nodes[keep_from].tokens
        if kept >= retain_tokens:
            break
    # Walk the cut toward the head until no tool call is open across it.
    while keep_from > 0 and not pairing.balanced_before(session, nodes[keep_from].seq):
        keep_from -= 1
    if keep_from == 0:
        return None
    return SurfaceRange(nodes[0].seq, nodes[keep_from - 1].seq)
