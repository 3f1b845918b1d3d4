"""The one shape of every view's driver."""

from __future__ import annotations

from typing import Any, Protocol

from compactcheck.harness.cases import Case
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import View


class Driver(Protocol):
    """Runs one target on cases of one view."""

    view: View

    def run(self, case: Case) -> list[RoundOutcome]:
        """Every round of a case, in order."""
        ...

    def replay(self, entry: dict[str, Any]) -> RoundOutcome:
        """Re-run one recorded round (a crash corpus entry's ``input`` and ``facts``)."""
        ...
