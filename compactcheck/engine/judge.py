"""The laws of one target on one view, applied to each case's rounds: counts, first failures."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

from compactcheck.base.call_law import CALL_ANSWERED, call_finding
from compactcheck.base.selection import Selection
from compactcheck.engine.config import RunConfig
from compactcheck.engine.fidelity import REFERENCE_TARGETS, FidelityTally
from compactcheck.engine.tally import Failure, Tally
from compactcheck.harness import RoundOutcome
from compactcheck.invariants import Budget, Finding, Invariant, View
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.invariants.sentences import load_lexicon
from compactcheck.invariants.ways import MAX_WAYS, in_order, way_of, ways
from compactcheck.models import MeteredModel
from compactcheck.models.judge import settle, settled_finding
from compactcheck.targets.registry import Target, resolve
from compactcheck.verdicts.counts import Reviewed, ReviewKept, review_items
from compactcheck.verdicts.levels import accepted_waivers

# The most distinct items for review a law keeps in a run (the others are counted).
_KEPT_REVIEW = 1000
# The most distinct ways of one law a run counts (the witnesses are fewer: MAX_WAYS).
_COUNTED_WAYS = 64
# Told of each law's first failure in each way, as it is met: the law, the round, the finding
# (that way's violation first).
Found = Callable[[Invariant, RoundOutcome, Finding], None]


def finding(outcome: RoundOutcome, law: Invariant) -> Finding | None:
    """One law's finding on one round; None where the law does not apply to it."""
    if law.id == CALL_ANSWERED:
        return call_finding(outcome)
    if not outcome.judges(law):
        return None
    return outcome.judge(law)


class Judge:
    """The selected laws of one target on one view, what they have seen, and what broke them."""

    def __init__(
        self, target: Target, view: View, config: RunConfig, budget: Budget | None
    ) -> None:
        self.view = view
        self.config = config
        # The budget the target is held to: its driver's, else the run's (None: none declared).
        self.budget = budget
        selection = Selection(config.include, config.exclude)
        # The format the target is driven in: the run's, or the only one the target speaks.
        self.format: Format = target.format if view == "messages" else CHAT
        self.laws: list[Invariant] = selection.laws(view, self.format)
        self.judging: list[Invariant] = selection.judging(view, self.format)
        # The ways each law declares, in the order its witnesses are kept (``invariants.ways``).
        self._ways_of = {law.id: law.ways for law in self.judging}
        # What the target declared it does not promise; a law of level 1 cannot be waived.
        structural = {law.id: bool(law.formats) for law in self.judging}
        self.waivers, self.refused_waivers = accepted_waivers(
            target.implementation.waivers, structural, self.format
        )
        reference_name = REFERENCE_TARGETS[view]
        self.fidelity = FidelityTally(
            view,
            config.budget,
            None
            if target.name == reference_name
            else resolve(reference_name, budget=config.budget, format=self.format).drivers[view](),
            reference_name,
            self.format,
        )
        self.tally = Tally()
        # Each broken law's first failure (its first way's witness), and its witness for each
        # distinct way (at most MAX_WAYS, in the order its law declares them), kept by ``keep``.
        self.failures: dict[str, Failure] = {}
        self.ways: dict[str, dict[str, Failure]] = {}
        # How many judged rounds broke each law in each way (at most _COUNTED_WAYS ways).
        self.way_counts: dict[str, Counter[str]] = defaultdict(Counter)
        # What the run's judge (--judge) settles the items for review with; opened on first use.
        self._judge: MeteredModel | None = None
        # Each law's distinct items for review (at most _KEPT_REVIEW kept, the rest counted), and
        # those a judge settled as faithful; an item met again is counted on the one kept.
        self.review: dict[str, ReviewKept] = defaultdict(lambda: ReviewKept(_KEPT_REVIEW))
        self.settled: dict[str, ReviewKept] = defaultdict(lambda: ReviewKept(_KEPT_REVIEW))
        if view == "messages":
            # The messages laws read prose from their first judgement on: the lemma dictionary
            # (a sixth of a second of CPU) is loaded with the judge, not inside the first case.
            load_lexicon()

    def finding(self, outcome: RoundOutcome, law: Invariant) -> Finding | None:
        """One law's finding on one round, its items for review settled by the run's judge
        where it has one; None where the law does not apply to the round."""
        judged = finding(outcome, law)
        if judged is None or not judged.review or self.config.judge is None:
            return judged
        if self._judge is None:
            self._judge = self.config.judge.open(self.config.corpus_dir)
        settled = settle(judged.review, self._judge)
        faithful = [s for s in settled if s.outcome == "pass"]
        for item in faithful:
            self.settled[law.id].add(
                review_items(replace(judged, review=(item.item,)), outcome.round, item.shown())
            )
        return settled_finding(judged, settled)

    def broken(self, outcome: RoundOutcome, law: Invariant) -> Finding | None:
        """The law's finding on a round that breaks it; None where it holds or does not apply."""
        found = self.finding(outcome, law)
        return found if found is not None and not found.holds else None

    def judge(self, outcomes: Sequence[RoundOutcome], found: Found) -> None:
        """Count every round of a case and judge every law on it; ``found`` hears first failures."""
        tally = self.tally
        for outcome in outcomes:
            tally.count(outcome)
            self.fidelity.count(outcome)
            for law in self.judging:
                judged = self.finding(outcome, law)
                if judged is None:
                    continue
                tally.exercised[law.id] += judged.exercised
                if judged.review:
                    self.review[law.id].add(review_items(judged, outcome.round))
                if not judged.holds:
                    self._broken_ways(law, outcome, judged, found)

    def _broken_ways(
        self, law: Invariant, outcome: RoundOutcome, judged: Finding, found: Found
    ) -> None:
        counts = self.way_counts[law.id]
        for way, split in ways(judged).items():
            if way in counts or len(counts) < _COUNTED_WAYS:
                counts[way] += 1
            if self.new_way(law.id, way):
                found(law, outcome, split)

    def new_way(self, law: str, way: str) -> bool:
        """Whether a failure of ``law`` in ``way`` would be a witness the run lacks."""
        kept = self.ways.get(law)
        return kept is None or (way not in kept and len(kept) < MAX_WAYS)

    def keep(self, law: str, failure: Failure) -> str:
        """Keep a failure as its way's witness (the law's first way's is ``failures[law]``);
        its way."""
        way = way_of(failure.finding.violations[0])
        kept = self.ways.setdefault(law, {})
        kept[way] = failure
        # In the order the law declares its ways, whichever this run met first.
        order = in_order(self._ways_of.get(law, ()), kept)
        self.ways[law] = kept = {met: kept[met] for met in order}
        self.failures[law] = next(iter(kept.values()))
        return way

    def first_ways(self) -> dict[str, str]:
        """Each broken law's first way: the one its verdict shows first."""
        return {law: next(iter(kept)) for law, kept in self.ways.items() if kept}

    def reviewed(self, law: str) -> Reviewed:
        """A law's items for review: those left, then those a judge settled as faithful (each
        once); only those left count."""
        left, settled = self.review.get(law), self.settled.get(law)
        items = [*(left.items if left else ()), *(settled.items if settled else ())]
        return Reviewed.of(items, count=left.count if left else 0)

    def others_broken(self, outcome: RoundOutcome, hunted: Invariant, found: Found) -> None:
        """Laws a shrinking hunt's round breaks that exploring never saw broken.

        Shrinking walks histories exploring did not draw; one that breaks another law too is a
        failure of that law, so that no law reports a pass beside a witness that breaks it.
        """
        for law in self.judging:
            if law.id == hunted.id or law.id in self.failures:
                continue
            judged = self.broken(outcome, law)
            if judged is not None:
                for way, split in ways(judged).items():
                    if self.new_way(law.id, way):
                        found(law, outcome, split)

    def all_broken(self) -> bool:
        """Whether every selected law of the catalogue is broken (the call law aside)."""
        return all(law.id in self.failures for law in self.laws)

    def applies(self, law: Invariant) -> bool:
        """Whether a law applies at all: a budget law needs a declared budget."""
        return not law.requires_budget or self.budget is not None

    def short_of_coverage(self) -> list[Invariant]:
        """Applicable laws, not yet broken, exercised fewer than ``min_exercised`` times."""
        return [
            law
            for law in self.laws
            if law.id not in self.failures
            and self.applies(law)
            and self.tally.exercised[law.id] < self.config.min_exercised
        ]

    def wants_coverage(self) -> bool:
        """Whether to explore past the budget: a law or compaction is short, within the cap."""
        tally, config = self.tally, self.config
        return (
            tally.answered > 0
            and bool(self.short_of_coverage() or tally.rarely_compacted(config.min_compactions))
            and tally.examples < config.example_cap
            and not config.time_is_up()
            and not (config.stop_when_all_broken and self.all_broken())
        )
