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

from compactcheck.harness.cases import KNOBS, Case
from compactcheck.harness.outcome import RoundOutcome
from compactcheck.invariants import ChatMessage, Facts, Violation
from compactcheck.invariants.laws.messages import LAWS, content
from compactcheck.report.drift import DriftRound, DriftRun, FactKind, FactRound, FactState
from compactcheck.strategies.drift import MIN_ROUNDS, drift_scenario
from compactcheck.strategies.messages_view import MessageRecorder
from compactcheck.targets.registry import Target


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

    # The reading's ruling on each fact it rules on (the goal and the constraints), read
    # against the whole history as the laws are.
    ruled = {made.fact: made.ruling for made in content.fact_rulings(before, outcome.after, facts)}
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
            FactRound(
                fact=text,
                kind=kind,
                state=state,
                laws=tuple(dict.fromkeys(laws)),
                ruling=ruled.get(text),
            )
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
