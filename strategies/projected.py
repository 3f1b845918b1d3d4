"""A projection of a scenario into one view, travelling with the scenario it came from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from hypothesis import strategies as st

from compactcheck.strategies.scenario_model import GroundTruth, Ledger, Scenario, walk
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.turns import Action, Turn, Visitor

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

    # Whether closing a turn as the run's last only tells the ledger the run is over (so that a
    # prefix's view can be read off a walk of the whole run: ``project_prefixes``).
    ends_turns_alike: ClassVar[bool] = True

    def __init__(self, scenario: Scenario) -> None:
        self.ledger = Ledger(scenario)

    def history(self) -> History:
        """The view as it stands."""
        raise NotImplementedError

    @classmethod
    def project(cls, scenario: Scenario) -> History:
        """The view of a whole scenario."""
        [(_, history)] = project_prefixes(cls, scenario, (len(scenario.turns),))
        return history


class _PrefixEnds(Visitor, Generic[History]):
    """Reads a recorder's view at the end of chosen turns, as if each were the run's last."""

    def __init__(self, recorder: Recorder[History], ends: Sequence[int]) -> None:
        self.recorder = recorder
        self.ends = frozenset(ends)
        self.taken: list[tuple[GroundTruth, History]] = []

    def action(self, action: Action) -> None:
        # Only the ends of turns matter here: no action is handed on to a hook.
        pass

    def turn_end(self, index: int, turn: Turn, last: bool) -> None:
        if last or index + 1 not in self.ends:
            return
        ledger = self.recorder.ledger
        # The walk of the prefix would end here: its ledger would call the run over.
        ledger.finished = True
        self.taken.append((ledger.truth(), self.recorder.history()))
        ledger.finished = False


def project_prefixes(
    recorder: type[Recorder[History]], scenario: Scenario, ends: Sequence[int]
) -> list[tuple[Scenario, History]]:
    """Each prefix of ``ends[i]`` turns (ascending, the last the whole run) and its view, in one
    walk of the run: as a walk of that prefix alone gives it (``Scenario.prefix``), each
    prefix's truth set on it, so that ``Scenario.truth`` need not walk it again.

    A round of a case used to walk its prefix from the start again; a case of three rounds now
    walks its run once.
    """
    if not ends or list(ends) != sorted(set(ends)) or ends[-1] != len(scenario.turns):
        raise ValueError(f"expected ascending turn counts ending at the whole run; got {ends}")
    if len(ends) > 1 and not recorder.ends_turns_alike:
        raise ValueError(f"{recorder.__name__} ends a run's last turn its own way: project each")
    record = recorder(scenario)
    if len(ends) == 1:
        # One round: nothing to read before the end of the walk.
        walk(scenario, record)
        taken = [(record.ledger.truth(), record.history())]
    else:
        cuts = _PrefixEnds(record, ends[:-1])
        walk(scenario, record, cuts)
        taken = [*cuts.taken, (record.ledger.truth(), record.history())]
    views: list[tuple[Scenario, History]] = []
    for count, (truth, history) in zip(ends, taken, strict=True):
        prefix = scenario.prefix(count)
        # ``setdefault``: a truth the whole run already holds is the same, and stays.
        prefix.__dict__.setdefault("truth", truth)
        views.append((prefix, history))
    return views


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
