"""A projection of a scenario into one view, travelling with the scenario it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from strategies.scenario import GroundTruth, Scenario

View = TypeVar("View", covariant=True)


@dataclass(frozen=True)
class Projected(Generic[View]):
    """One view of a scenario, with the scenario itself so that a checker knows the truth."""

    scenario: Scenario
    view: View

    @property
    def truth(self) -> GroundTruth:
        """What a faithful compaction of this history must keep."""
        return self.scenario.truth
