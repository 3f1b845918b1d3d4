"""Drift: what a summariser keeps of each fact over ten or more chained compactions, per round.

A drift run walks one long run (``compactcheck.strategies.drift``) through a target's messages
view, compacting after every turn. Each fact of a round (the goal, each current and each
superseded constraint, each must-keep identifier) is recorded as kept, lost, or reasserted (a
superseded value stated as current), with the laws that failed on it, read against the whole
history so far, so that the round where a summariser rewrote a constraint is named and the
rounds after it still show the loss. A fact's ``ruling`` is left empty for a reading that rules
on each fact to fill.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from compactcheck.harness.cases import KNOBS, Case
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import ChatMessage, Facts, Violation
from compactcheck.invariants.laws.messages import LAWS, content
from compactcheck.strategies.drift import MIN_ROUNDS, drift_scenario
from compactcheck.strategies.messages_view import MessageRecorder
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


# The laws that say whether a fact is still said: judged against the whole history so far, so
# that a fact lost in one round stays lost in the rounds after (judged against its own input
# only, a round cannot miss what an earlier round already dropped).
FACT_LAWS = (content.goal_preserved, content.constraints_preserved, content.facts_preserved)


def read_round(outcome: RoundOutcome, whole: Sequence[ChatMessage]) -> DriftRound:
    """One round's record: each fact's state by the laws read against ``whole``, the history
    as it would stand uncompacted; ``other`` the violations of the round's own laws (against its
    input) that name no fact."""
    if outcome.facts is None or not outcome.answered:
        return DriftRound(round=outcome.round, status=outcome.status, reason=outcome.reason)
    facts: Facts = outcome.facts
    before = tuple(whole)
    cumulative = [
        v for law in FACT_LAWS for v in law.check(before, outcome.after, facts).violations
    ]
    own = [
        violation
        for law in LAWS
        if not law.formats and outcome.judges(law)
        for violation in outcome.judge(law).violations
    ]
    texts: list[tuple[str, FactKind]] = [(facts.goal, "goal")] if facts.goal else []
    texts += [(text, "constraint") for text in facts.constraints]
    texts += [(text, "superseded") for text in facts.superseded_constraints]
    texts += [(text, "must_keep") for text in facts.must_keep]

    def names(violation: Violation) -> bool:
        return any(
            _mentions(violation, text)
            or (kind == "goal" and violation.invariant == "goal_preserved")
            for text, kind in texts
        )

    entries: list[FactRound] = []
    for text, kind in texts:
        laws = [
            v.invariant
            for v in cumulative
            if _mentions(v, text) or (kind == "goal" and v.invariant == "goal_preserved")
        ]
        state: FactState = "kept"
        if laws:
            state = "reasserted" if kind == "superseded" else "lost"
        entries.append(
            FactRound(fact=text, kind=kind, state=state, laws=tuple(dict.fromkeys(laws)))
        )
    unnamed = (v for v in (*own, *cumulative) if not names(v))
    other = tuple(dict.fromkeys(f"{v.invariant}: {v.because}" for v in unnamed))
    return DriftRound(round=outcome.round, status=outcome.status, facts=tuple(entries), other=other)


def run_drift(target: Target, seed: int, rounds: int = MIN_ROUNDS) -> DriftRun:
    """Walk the drift run of ``seed`` through ``target``'s messages view, one record a round."""
    case = drift_case(seed, rounds)
    outcomes = target.drivers["messages"]().run(case)
    histories = [history.messages for _, history in case.projected(MessageRecorder)]
    model = target.model.name if target.model is not None else None
    return DriftRun(
        target=target.name,
        model=model,
        seed=seed,
        rounds=tuple(
            read_round(outcome, whole) for outcome, whole in zip(outcomes, histories, strict=False)
        ),
    )
