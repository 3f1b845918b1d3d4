"""Fidelity measures of a target run, beside the reference compactor on the same inputs.

Every compaction that exploring judges is also measured (``compactcheck.invariants.fidelity``): what
share of each fact kind survived, and how much the history shrank. Unless the target is the
reference itself, the view's reference compactor is handed the very input the target was
handed, at the same declared budget, and measured the same way: the differential ("on these
inputs the reference keeps 100 % of the changed files; this target 58 %").
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from compactcheck.harness import Driver, RoundOutcome
from compactcheck.harness.messages import MessagesDriver
from compactcheck.invariants import Budget, View
from compactcheck.invariants.facts import Counter, Facts
from compactcheck.invariants.fidelity import (
    RoundFidelity,
    messages_fidelity,
    session_fidelity,
    snapshot_fidelity,
)
from compactcheck.invariants.formats import Format
from compactcheck.invariants.rulings import RULINGS
from compactcheck.reference_engine.messages import DEFAULT_MAX_MESSAGES
from compactcheck.report.model import Fidelity, FidelityRound, FidelitySide, Spread
from compactcheck.scale.fidelity import MEASURES

# The built-in reference compactor of each view.
REFERENCE_TARGETS: dict[str, str] = {
    "messages": "reference-messages",
    "snapshot": "reference",
    "session": "reference-session",
}


def round_fidelity(view: View, outcome: RoundOutcome, counter: Counter) -> RoundFidelity | None:
    """The measures of one answered round; None for a round with nothing to measure."""
    if outcome.facts is None or not outcome.answered:
        return None
    if view == "messages":
        return messages_fidelity(
            outcome.round,
            outcome.before,
            outcome.after,
            outcome.facts,
            counter,
        )
    if view == "snapshot":
        return snapshot_fidelity(outcome.round, outcome.before, outcome.after, outcome.facts)
    return session_fidelity(outcome.round, outcome.before, outcome.after, outcome.facts)


def _spread(values: Sequence[float]) -> Spread:
    mean = math.fsum(values) / len(values)
    variance = math.fsum((value - mean) ** 2 for value in values) / len(values)
    return Spread(
        mean=round(mean, 4),
        low=round(min(values), 4),
        high=round(max(values), 4),
        sd=round(math.sqrt(variance), 4),
        n=len(values),
    )


def summarised(number: int, measured: Sequence[RoundFidelity]) -> FidelityRound:
    """Each measure's mean and spread over ``measured`` (kinds no input held are left out)."""
    measures: dict[str, Spread] = {}
    for kind in MEASURES:
        values = [share for item in measured if (share := item.share(kind)) is not None]
        if values:
            measures[kind] = _spread(values)
    ruled: dict[str, int] = defaultdict(int)
    for item in measured:
        for ruling, count in item.rulings.items():
            ruled[ruling] += count
    order: dict[str, int] = {name: at for at, name in enumerate(RULINGS)}
    counts = {name: ruled[name] for name in sorted(ruled, key=lambda n: order.get(n, len(order)))}
    return FidelityRound(round=number, compactions=len(measured), measures=measures, rulings=counts)


def _side(by_round: dict[int, list[RoundFidelity]]) -> FidelitySide:
    everything = [item for number in sorted(by_round) for item in by_round[number]]
    return FidelitySide(
        overall=summarised(0, everything),
        rounds=[summarised(number, by_round[number]) for number in sorted(by_round)],
    )


class FidelityTally:
    """The measures of every compaction a run judged, and of the reference on the same input."""

    def __init__(
        self,
        view: View,
        budget: Budget | None,
        reference: Driver | None,
        reference_target: str,
        format: Format,
    ) -> None:
        self.view = view
        self.counter: Counter = (
            budget.counter if budget is not None and view == "messages" else "characters"
        )
        self.reference = reference
        self.reference_target = reference_target
        self.target_rounds: dict[int, list[RoundFidelity]] = defaultdict(list)
        self.reference_rounds: dict[int, list[RoundFidelity]] = defaultdict(list)
        # Reference rounds that did not answer (declined, errored): compared on fewer inputs.
        self.reference_missing = 0
        self.reference_error = ""
        if view != "messages":
            where = ""
        elif budget is not None:
            where = f" at the declared budget ({budget.limit} {budget.counter}), in {format}"
        else:
            kept = f"it then keeps at most {DEFAULT_MAX_MESSAGES} messages"
            where = f" with no declared budget ({kept}), in {format}"
        self.note = (
            f"{reference_target}{where}, handed every input this target compacted"
            if reference is not None
            else f"this target is the view's reference ({reference_target})"
        )

    def count(self, outcome: RoundOutcome) -> None:
        """Measure one round the target compacted (others are not compactions to measure)."""
        if not outcome.judged:
            return
        measured = round_fidelity(self.view, outcome, self.counter)
        if measured is None:
            return
        self.target_rounds[outcome.round].append(measured)
        if self.reference is None or outcome.facts is None:
            return
        try:
            answer = self._reference_round(self.reference, outcome, outcome.facts)
        except Exception as error:  # the reference is ours: its fault must not end their run
            self.reference_missing += 1
            self.reference_error = self.reference_error or f"{type(error).__name__}: {error}"
            return
        theirs = round_fidelity(self.view, answer, self.counter)
        if theirs is None:
            self.reference_missing += 1
        else:
            self.reference_rounds[outcome.round].append(theirs)

    @staticmethod
    def _reference_round(reference: Driver, outcome: RoundOutcome, facts: Facts) -> RoundOutcome:
        """The reference's answer to the input ``outcome`` was handed."""
        handed = outcome.input
        if isinstance(reference, MessagesDriver) and "messages" in handed:
            # The chat messages as parsed for the target: the reference need not parse again.
            knobs = tuple(handed.get("knobs", ()))
            return reference.one(outcome.round, handed["messages"], facts, knobs, outcome.before)
        entry = {"round": outcome.round, "input": handed, "facts": facts.model_dump(mode="json")}
        return reference.replay(entry)

    def report(self) -> Fidelity | None:
        """The run's fidelity, or None when nothing was compacted."""
        if not self.target_rounds:
            return None
        note = self.note
        if self.reference_missing:
            note += (
                f"; it did not answer {self.reference_missing} of them (declined or failed), "
                "which its figures leave out"
            )
        if self.reference_error:
            note += f" (first failure: {self.reference_error[:200]})"
        return Fidelity(
            counter=self.counter,
            target=_side(self.target_rounds),
            reference=_side(self.reference_rounds) if self.reference_rounds else None,
            reference_target=self.reference_target,
            reference_note=note,
        )
