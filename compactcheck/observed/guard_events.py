"""What a runtime guard records: each call that broke a law, and its counts.

A ``GuardEvent`` is what ``on_event`` and an ``on_violation`` callable are handed; ``GuardStats``
what ``guarded.stats`` counts; ``RepairError`` what a repairing guard raises when no lawful
answer fits the declared budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from compactcheck.observed.judging import Judgement, ViolationError
from compactcheck.observed.repair import Change


@dataclass(frozen=True)
class GuardEvent:
    """One guarded call that broke a law: the judgement, what went in, what came out, and (in
    repair mode) what the guard did about it."""

    judgement: Judgement
    before: Any
    after: Any
    repairs: tuple[Change, ...] = ()
    """Each repair made: the law, what was added or taken out, the size before and after."""
    returned: Literal["", "repaired", "input", "nothing"] = ""
    """In repair mode: the repaired answer, the input (no lawful repair), or nothing (no lawful
    answer fits the declared budget: ``RepairError``); '' in the other modes."""
    reason: str = ""
    """Why the answer was not repaired ('' when it was, or in the other modes)."""


@dataclass
class GuardStats:
    """What a guard has seen so far."""

    calls: int = 0
    checked: int = 0
    violated: int = 0
    repaired: int = 0
    """Calls whose answer was repaired (repair mode)."""
    unrepaired: int = 0
    """Calls whose answer no repair made lawful (the input was returned, or RepairError)."""
    repairs: dict[str, int] = field(default_factory=dict)
    """Repairs made, by the law each mended."""
    grown: int = 0
    """Lawful answers larger than their input, replaced by the input (repair mode)."""

    def counters(self) -> dict[str, int]:
        """Every count under a flat name, for a metrics system ("repairs.tool_pairing": 3)."""
        flat = {
            "calls": self.calls,
            "checked": self.checked,
            "violated": self.violated,
            "repaired": self.repaired,
            "unrepaired": self.unrepaired,
            "grown": self.grown,
        }
        flat.update({f"repairs.{law}": count for law, count in sorted(self.repairs.items())})
        return flat


class RepairError(ViolationError):
    """A broken answer that no repair made lawful within the declared budget, whose input is
    over that budget too: no lawful answer fits (``judgement`` has every finding)."""

    def __init__(self, judgement: Judgement, reason: str) -> None:
        super().__init__(judgement)
        self.reason = reason
        self.args = (f"{self.args[0]}; not repaired: {reason}",)


__all__ = ["GuardEvent", "GuardStats", "RepairError"]
