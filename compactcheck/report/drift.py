"""A drift run's record: each fact's state in each round of one long, often-compacted run."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FactKind = Literal["goal", "constraint", "superseded", "must_keep"]
FactState = Literal["kept", "lost", "reasserted"]


class FactRound(BaseModel):
    """One fact in one round: how the laws read it in that round's output."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact: str
    kind: FactKind
    state: FactState = Field(
        description="kept: no law failed on it; lost: a law found it missing; reasserted: a "
        "superseded value stated as current"
    )
    laws: tuple[str, ...] = Field(default=(), description="the laws that failed on this fact")
    ruling: str | None = Field(
        default=None, description="the reading's ruling on this fact, where one was made"
    )


class DriftRound(BaseModel):
    """One compaction of a drift run: its status, each fact's state, and what named no fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    round: int
    status: str
    facts: tuple[FactRound, ...] = ()
    other: tuple[str, ...] = Field(
        default=(), description="violations that name no fact, as 'law: reason'"
    )
    reason: str = ""

    def count(self, state: FactState) -> int:
        """How many facts of this round are in ``state``."""
        return sum(fact.state == state for fact in self.facts)


class Onset(BaseModel):
    """The round in which a fact first went wrong, and how."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact: str
    kind: FactKind
    round: int
    state: FactState
    laws: tuple[str, ...]


class DriftRun(BaseModel):
    """A drift run's record: one entry per round, in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str
    model: str | None = None
    seed: int
    rounds: tuple[DriftRound, ...]

    def onsets(self) -> tuple[Onset, ...]:
        """Each fact that went wrong, at the first round it did (a fact kept after is ignored
        there: its first fall is where a reader looks)."""
        seen: dict[tuple[FactKind, str], Onset] = {}
        for drift_round in self.rounds:
            for fact in drift_round.facts:
                key = (fact.kind, fact.fact)
                if fact.state != "kept" and key not in seen:
                    seen[key] = Onset(
                        fact=fact.fact,
                        kind=fact.kind,
                        round=drift_round.round,
                        state=fact.state,
                        laws=fact.laws,
                    )
        return tuple(sorted(seen.values(), key=lambda onset: onset.round))

    def failed(self) -> bool:
        """Whether any round lost or reasserted a fact, or broke a law naming none."""
        return any(r.other or r.count("kept") < len(r.facts) for r in self.rounds)
