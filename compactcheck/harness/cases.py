"""Multi-round cases: a scenario, where its rounds end, and what each view asks of a target."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import lru_cache

from hypothesis import strategies as st

from compactcheck.invariants import View
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.invariants.session.exchange import MODES as SESSION_MODES
from compactcheck.invariants.session.exchange import Mode as SessionMode
from compactcheck.strategies import Scenario, scenarios
from compactcheck.strategies.features import feature_values
from compactcheck.strategies.projected import History, Recorder, project_prefixes

# How many knobs a case carries (see ``Case.knobs``).
KNOBS = 8

# Inputs that break a provider's rules on purpose, each only when the user names it (--malformed):
# a tool result arriving after other messages, and tool calls left without results.
_KNOB_WORDS = st.integers(0, 2 ** (4 * KNOBS // 2) - 1)

MALFORMED: tuple[str, ...] = ("late-results", "pending-calls")


@dataclass(frozen=True)
class Case:
    """A scenario and where its rounds end: round r sees the first ``cuts[r]`` turns."""

    scenario: Scenario
    cuts: tuple[int, ...]
    # Which compaction the session view asks for (the other views ignore it).
    session_mode: SessionMode = "manual"
    # Small integers drawn with the history for a compactor's own settings (see the adapters):
    # they travel in the messages payload and shrink with the history.
    knobs: tuple[int, ...] = ()
    # Which of a provider format's own parts the history carries
    # (compactcheck.invariants.formats.projection.Features); drawn only for a format other than chat
    # completions, and 0 (none) otherwise.
    features: int = 0

    def projected(self, recorder: type[Recorder[History]]) -> list[tuple[Scenario, History]]:
        """Each round's prefix (``prefix``) and its view, the run walked once for all of them."""
        return project_prefixes(recorder, self.scenario, self.cuts)

    def prefix(self, round_index: int) -> Scenario:
        """The scenario as it stands at the end of one round (0-based)."""
        return self.scenario.prefix(self.cuts[round_index])


def cases(
    rounds: int,
    view: View | None = None,
    malformed: Collection[str] = (),
    format: Format = CHAT,
) -> st.SearchStrategy[Case]:
    """Cases for one view: a messages history is one the provider accepts unless ``malformed``.

    The snapshot and session designs allow a result to arrive late; a chat provider does not.
    A messages case in a provider format also draws which of the format's own parts it has.
    """
    if view == "messages":
        late, pending = "late-results" in malformed, "pending-calls" in malformed
        return _cases(rounds, scenarios(late_results=late, pending_calls=pending), format != CHAT)
    return _cases(rounds, scenarios())


# Strategies made once, not on every draw (each made inside a draw is a cache lookup).
_MODES = st.sampled_from(SESSION_MODES)
_FEATURES = feature_values()


@lru_cache(maxsize=64)
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@lru_cache(maxsize=64)
def _cut_sets(turns: int, size: int) -> st.SearchStrategy[frozenset[int]]:
    """``size`` distinct inner cut points of a run of ``turns`` turns."""
    return st.frozensets(st.integers(1, turns - 1), min_size=size, max_size=size)


@st.composite
def _cases(
    draw: st.DrawFn,
    rounds: int,
    scenario_strategy: st.SearchStrategy[Scenario],
    with_features: bool = False,
) -> Case:
    """A scenario cut into one to ``rounds`` compaction rounds at turn boundaries."""
    scenario = draw(scenario_strategy)
    turns = len(scenario.turns)
    count = draw(_integers(1, max(1, min(rounds, turns))))
    inner = sorted(draw(_cut_sets(turns, count - 1))) if count > 1 else []
    if count > 1:
        # Earlier compactions inside later rounds would rewrite what an earlier round saw;
        # the chained rounds are the compactions under test there.
        first = inner[0]
        turns_fixed = tuple(
            turn if index < first else replace(turn, compacted_before=False)
            for index, turn in enumerate(scenario.turns)
        )
        scenario = replace(scenario, turns=turns_fixed)
    mode = draw(_MODES)
    # Two draws of four knobs each, not eight draws: a case's cost is its number of choices.
    knobs = tuple(
        value >> (4 * index) & 15
        for value in (draw(_KNOB_WORDS), draw(_KNOB_WORDS))
        for index in range(KNOBS // 2)
    )
    features = draw(_FEATURES) if with_features else 0
    return Case(scenario, (*inner, turns), mode, knobs, features)
