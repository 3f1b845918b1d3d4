"""A projection of a scenario into one view, travelling with the scenario it came from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from hypothesis import strategies as st

from strategies.scenario import GroundTruth, Scenario
from strategies.scenarios import scenarios

View = TypeVar("View", covariant=True)
History = TypeVar("History")


@dataclass(frozen=True)
class Projected(Generic[View]):
    """One view of a scenario, with the scenario itself so that a checker knows the truth."""

    scenario: Scenario
    view: View

    @property
    def truth(self) -> GroundTruth:
        """What a faithful compaction of this history must keep."""
        return self.scenario.truth


def projected_histories(
    project: Callable[[Scenario], History],
    scenario_strategy: st.SearchStrategy[Scenario] | None = None,
) -> st.SearchStrategy[Projected[History]]:
    """Scenarios (by default every kind ``scenarios()`` draws) projected by ``project``."""
    chosen = scenarios() if scenario_strategy is None else scenario_strategy
    return chosen.map(lambda scenario: Projected(scenario, project(scenario)))
