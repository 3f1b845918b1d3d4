"""A projection of a scenario into one view, travelling with the scenario it came from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from hypothesis import strategies as st

from strategies.scenario_model import GroundTruth, Ledger, Scenario, Visitor, walk
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


class Recorder(Visitor, Generic[History]):
    """Writes one view of a run as it is walked, beside the ledger of what happened so far."""

    def __init__(self, scenario: Scenario) -> None:
        self.ledger = Ledger(scenario)

    def history(self) -> History:
        """The view as it stands."""
        raise NotImplementedError

    @classmethod
    def project(cls, scenario: Scenario) -> History:
        """The view of a whole scenario."""
        recorder = cls(scenario)
        walk(scenario, recorder)
        # The recorder's ledger saw the whole walk: its truth is the scenario's, so the scenario
        # need not be walked a second time for it (``Scenario.truth`` is a cached property).
        scenario.__dict__.setdefault("truth", recorder.ledger.truth())
        return recorder.history()


@dataclass(frozen=True)
class ViewHistories(Generic[History]):
    """Scenarios (by default every kind ``scenarios()`` draws) projected by ``project``."""

    project: Callable[[Scenario], History]

    def __call__(
        self, scenario_strategy: st.SearchStrategy[Scenario] | None = None
    ) -> st.SearchStrategy[Projected[History]]:
        """The projected histories of ``scenario_strategy`` (of ``scenarios()`` when None)."""
        chosen = scenarios() if scenario_strategy is None else scenario_strategy
        project = self.project
        return chosen.map(lambda scenario: Projected(scenario, project(scenario)))
