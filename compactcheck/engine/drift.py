"""Drift: what a summariser keeps of each fact over ten or more chained compactions, per round.

A drift run walks one long run (``compactcheck.strategies.drift``) through a target's messages
view, compacting after every turn, and judges every round with the messages laws. Each fact of
a round (the goal, each current and each superseded constraint, each must-keep identifier) is
recorded as kept, lost, or reasserted (a superseded value stated as current), with the laws that
failed on it, so that the round where a summariser rewrote a constraint is named. A fact's
``ruling`` is left empty for a reading that rules on each fact to fill.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from compactcheck.harness.cases import KNOBS, Case
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import Facts, Violation
from compactcheck.invariants.laws.messages import LAWS
from compactcheck.strategies.drift import MIN_ROUNDS, drift_scenario
from compactcheck.targets.registry import Target

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


def drift_case(seed: int, rounds: int = MIN_ROUNDS) -> Case:
    """The drift run of ``seed`` as a case compacted after every turn."""
    scenario = drift_scenario(seed, rounds)
    knobs = tuple(random.Random(seed).randrange(16) for _ in range(KNOBS))
    return Case(scenario, tuple(range(1, rounds + 1)), knobs=knobs)


def _mentions(violation: Violation, text: str) -> bool:
    return repr(text) in violation.because


def read_round(outcome: RoundOutcome) -> DriftRound:
    """One round's record: each fact's state by the messages laws that failed on it."""
    if outcome.facts is None or not outcome.answered:
        return DriftRound(round=outcome.round, status=outcome.status, reason=outcome.reason)
    facts: Facts = outcome.facts
    violations = [
        violation
        for law in LAWS
        if not law.formats and outcome.judges(law)
        for violation in outcome.judge(law).violations
    ]
    named: set[int] = set()

    def fact_round(text: str, kind: FactKind) -> FactRound:
        laws: list[str] = []
        for index, violation in enumerate(violations):
            if _mentions(violation, text) or (
                kind == "goal" and violation.invariant == "goal_preserved"
            ):
                named.add(index)
                laws.append(violation.invariant)
        state: FactState = "kept"
        if laws:
            state = "reasserted" if kind == "superseded" else "lost"
        return FactRound(fact=text, kind=kind, state=state, laws=tuple(dict.fromkeys(laws)))

    entries = [fact_round(facts.goal, "goal")] if facts.goal else []
    entries += [fact_round(text, "constraint") for text in facts.constraints]
    entries += [fact_round(text, "superseded") for text in facts.superseded_constraints]
    entries += [fact_round(text, "must_keep") for text in facts.must_keep]
    other = tuple(
        f"{violation.invariant}: {violation.because}"
        for index, violation in enumerate(violations)
        if index not in named
    )
    return DriftRound(round=outcome.round, status=outcome.status, facts=tuple(entries), other=other)


def run_drift(target: Target, seed: int, rounds: int = MIN_ROUNDS) -> DriftRun:
    """Walk the drift run of ``seed`` through ``target``'s messages view, one record a round."""
    driver = target.drivers["messages"]()
    outcomes = driver.run(drift_case(seed, rounds))
    model = target.model.name if target.model is not None else None
    return DriftRun(
        target=target.name,
        model=model,
        seed=seed,
        rounds=tuple(read_round(outcome) for outcome in outcomes),
    )
