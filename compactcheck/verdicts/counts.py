"""The verdict policy: what a law's counts and first failure let a run, merge or audit say of it.

The one place where counts become a result. A pass is earned: only rounds where the law could
have failed count toward it, a target that (almost) never compacted gets no pass, and a target
none of whose calls answered is errored, not judged. Runs (``engine.results``), merges of shards
(``scale.merge``), audits of recorded logs and pair checks (``recorded``, ``cli.pairs``) and the
waivers and refusals a run declares over its laws (``overlaid``) all ask here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from compactcheck.base.call_law import CALL_ANSWERED as CALL_ANSWERED
from compactcheck.invariants import Finding
from compactcheck.report.model import (
    MAX_REVIEW_ITEMS,
    MIN_COMPACTED_PERCENT,
    VACUITY_PREFIX,
    Counterexample,
    InvariantResult,
    ModelCalls,
    ReviewItem,
    Verdict,
)

# The tally's count of calls that answered what their view does not take (Answer.wrong_answer);
# not a status of the report's calls, which counts them as errored.
WRONG_ANSWERS = "wrong answers"
# How a law that cannot apply at all (a budget law without a budget) begins its because; a
# level holds over it, and a merge keeps it only when every shard said so.
NOT_APPLICABLE = "not applicable"
# When no shard broke a law and none could judge it, the most telling verdict wins.
_QUIET_ORDER: tuple[Verdict, ...] = ("errored", "unknown", "skipped")


@dataclass(frozen=True)
class Counts:
    """What the judging of one law saw: histories, calls by how they ended, rounds exercising it."""

    examples: int
    exercised: int
    compactions: int
    unchanged: int
    errored: int
    # Calls the target declined or the view declined for it (the report's "skipped").
    skipped: int = 0

    @classmethod
    def summed(cls, results: Sequence[InvariantResult]) -> Counts:
        """The counts of several shards' results of one law, added up."""
        return cls(**{name: sum(getattr(r, name) for r in results) for name in _COUNT_FIELDS})

    @property
    def answered(self) -> int:
        """Calls that got a valid answer, changed or not."""
        return self.compactions + self.unchanged


_COUNT_FIELDS = tuple(Counts.__dataclass_fields__)


def same_item(item: ReviewItem) -> tuple[object, ...]:
    """What makes two items for review one for a reader: the fact, the sentence, the leaning, the
    reason and the judge's word, whichever round or output index met it."""
    return (item.fact, item.kind, item.leans, item.reason, item.sentence, item.judged)


def merged_items(items: Sequence[ReviewItem]) -> list[ReviewItem]:
    """``items`` with each distinct one once, where first met, its ``met`` the sum of theirs."""
    kept = ReviewKept(cap=len(items))
    kept.add(items)
    return kept.items


@dataclass(frozen=True)
class Reviewed:
    """The items for review one law met: the first ones, and how many distinct ones in all."""

    items: tuple[ReviewItem, ...] = ()
    count: int = 0

    @classmethod
    def of(cls, items: Sequence[ReviewItem], count: int | None = None) -> Reviewed:
        """At most MAX_REVIEW_ITEMS of ``items`` (each distinct one once, ``merged_items``),
        counting ``count`` less the repeats merged, or the distinct ones."""
        kept = merged_items(items)
        if count is None:
            return cls(tuple(kept[:MAX_REVIEW_ITEMS]), len(kept))
        return cls(tuple(kept[:MAX_REVIEW_ITEMS]), max(len(kept), count - (len(items) - len(kept))))

    @classmethod
    def summed(cls, results: Sequence[InvariantResult]) -> Reviewed:
        """The items of several shards' results of one law, together (one met in several shards
        is one item)."""
        items = [item for result in results for item in result.review]
        return cls.of(items, sum(result.reviewed for result in results))


@dataclass
class ReviewKept:
    """A law's distinct items for review as a run meets them: the first ``cap`` kept, with how
    often each was met, and those beyond counted once each (by a hash of what makes them one,
    up to ``_HASHED`` of them; past that, each time met)."""

    cap: int
    kept: dict[tuple[object, ...], ReviewItem] = field(default_factory=dict)
    met: Counter[tuple[object, ...]] = field(default_factory=Counter)
    beyond: set[int] = field(default_factory=set)
    beyond_unhashed: int = 0

    def add(self, items: Sequence[ReviewItem]) -> None:
        """Keep or count each of ``items``."""
        for item in items:
            key = same_item(item)
            if key in self.kept or len(self.kept) < self.cap:
                self.kept.setdefault(key, item)
                self.met[key] += item.met
            elif len(self.beyond) < _HASHED:
                self.beyond.add(hash(key))
            elif hash(key) not in self.beyond:
                self.beyond_unhashed += 1

    @property
    def items(self) -> list[ReviewItem]:
        """The items kept, in the order first met, each with how often it was met."""
        return [
            item if item.met == self.met[key] else item.model_copy(update={"met": self.met[key]})
            for key, item in self.kept.items()
        ]

    @property
    def count(self) -> int:
        """How many distinct items were met (kept or not)."""
        return len(self.kept) + len(self.beyond) + self.beyond_unhashed


# The most items beyond a tally's cap told apart by hash (a log may hold millions of pairs).
_HASHED = 100_000


NO_REVIEW = Reviewed()


def review_items(found: Finding, round: int, judged: str | None = None) -> list[ReviewItem]:
    """A finding's items for review as the report lists them."""
    return [
        ReviewItem(
            fact=item.fact,
            kind=item.kind,
            leans=item.leans,
            reason=item.reason,
            sentence=item.sentence,
            message=item.message,
            round=round,
            judged=judged,
        )
        for item in found.review
    ]


def review_line(review: Reviewed) -> str:
    """How a law's because says its items for review: how many, and where they are listed."""
    return (
        f"held wherever it could be judged; {review.count} item(s) for a reader: rulings on "
        "meaning the reading could not settle (listed under review; --judge settles them)"
    )


def _result(
    invariant: str,
    statement: str,
    counts: Counts,
    verdict: Verdict,
    because: str | None,
    counterexample: Counterexample | None = None,
    review: Reviewed = NO_REVIEW,
) -> InvariantResult:
    return InvariantResult(
        invariant=invariant,
        statement=statement,
        **asdict(counts),
        verdict=verdict,
        because=because,
        counterexample=counterexample,
        review=list(review.items),
        reviewed=review.count,
    )


def _reviewed(verdict: Verdict, because: str, review: Reviewed) -> tuple[Verdict, str]:
    """A law that held, with items a reader must see: the verdict review. Anything else stands."""
    if verdict == "pass" and review.count:
        return "review", f"{review_line(review)}; {because}"
    return verdict, because


MIN_COMPACTIONS = 3
"""The fewest compactions a pass may rest on, whatever share of the calls they are."""


def rarely_compacted(compactions: int, answered: int, floor: int = MIN_COMPACTIONS) -> bool:
    """Whether a target changed the history in none or almost none of its answered calls.

    Fewer than max(``floor``, MIN_COMPACTED_PERCENT %) of the answered calls: a pass would rest
    on a handful of compactions. A shard asks its share of the floor (``RunConfig.for_shard``).
    """
    return compactions < max(floor, -(-answered * MIN_COMPACTED_PERCENT // 100))


def answered_verdict(
    invariant: str,
    *,
    compactions: int,
    unchanged: int,
    exercised: int,
    examples: int,
    declined: int,
    errored: int = 0,
) -> tuple[Verdict, str] | None:
    """The verdict of a law no call broke, from the counts of answered calls; None if none answered.

    The one policy of a run and of a merge of shards: the call law passes on any answer; no other
    law passes when the target (almost) never compacted, or when no call could have broken it.
    A pass beside calls that errored says that it was judged on the answers alone.
    """
    answered = compactions + unchanged
    if answered == 0:
        return None
    if invariant == CALL_ANSWERED:
        return "pass", f"answered all {exercised} calls on valid input"
    if rarely_compacted(compactions, answered):
        return "unknown", vacuity_line(compactions, unchanged, declined, examples)
    if exercised == 0:
        return "unknown", (
            f"held on {compactions} compactions in {examples} histories, none of which could "
            "have broken it"
        )
    because = f"held on {compactions} compactions; {exercised} exercised it"
    if errored:
        because += errored_clause(errored)
    return "pass", because


def errored_clause(errored: int) -> str:
    """How a pass's because ends when some calls errored: it judged the answered calls alone."""
    return f"; {errored} call(s) errored and were not judged (see {CALL_ANSWERED})"


def vacuity_line(compactions: int, unchanged: int, declined: int, examples: int) -> str:
    """Why a target that (almost) never compacted gets no pass, and what to do about it."""
    answered = compactions + unchanged
    return (
        f"{VACUITY_PREFIX}the target changed the history in {compactions} of {answered} answered "
        f"calls ({unchanged} handed it back unchanged, {declined} declined) over {examples} "
        f"histories, so the laws had almost nothing to judge (at least {MIN_COMPACTED_PERCENT} % "
        "must compact); make it compact: lower its trigger or size setting, declare a budget it "
        "must meet (--budget N), or give it longer histories (--rounds)"
    )


def every_call_failed(answered: int, statuses: Mapping[str, int]) -> bool:
    """Whether the call law's failure means that nothing was judged: not one call answered.

    Calls that answered what the view does not take (a forgotten return) are the call law's
    violation even when no call answered well.
    """
    return answered == 0 and not statuses.get(WRONG_ANSWERS, 0)


def unanswered_verdict(
    statuses: Mapping[str, int], common_reason: str, examples: int
) -> tuple[Verdict, str]:
    """Why nothing could be judged when no call answered."""

    def status(name: str) -> int:
        return statuses.get(name, 0)

    if status("timed out") and status("timed out") == status("errored"):
        return "unknown", f"every call timed out: {common_reason}"
    if status(WRONG_ANSWERS) and status(WRONG_ANSWERS) == status("errored"):
        # Said once, by the call law's violation: what the target answered is not what the
        # view takes.
        return "errored", f"not judged: no call answered what the view takes (see {CALL_ANSWERED})"
    if status("errored") and not status("skipped"):
        return "errored", f"every compaction errored: {common_reason}"
    if status("skipped") and not status("errored"):
        return "skipped", f"the target declined every history: {common_reason}"
    return "unknown", (
        f"no compaction could be judged in {examples} histories ({dict(statuses)}): {common_reason}"
    )


@dataclass(frozen=True)
class Calls:
    """How a run's calls ended, as the verdict of a law nothing broke needs them."""

    # Statuses and their counts, as the run's tally keeps them (with "timed out" and
    # WRONG_ANSWERS beside the report's statuses).
    statuses: Mapping[str, int]
    common_reason: str = ""
    # Calls that errored on input that broke a provider rule (not held against the target).
    malformed_errors: int = 0


def quiet_verdict(
    invariant: str, counts: Counts, calls: Calls, min_exercised: int, cap: int
) -> tuple[Verdict, str]:
    """The verdict in a run of a law nothing broke (an applicable law: a budget law has one)."""
    judged = answered_verdict(
        invariant,
        compactions=counts.compactions,
        unchanged=counts.unchanged,
        exercised=counts.exercised,
        examples=counts.examples,
        declined=counts.skipped,
        errored=counts.errored,
    )
    if judged is None:
        return unanswered_verdict(calls.statuses, calls.common_reason, counts.examples)
    verdict, because = judged
    if invariant == CALL_ANSWERED and calls.malformed_errors:
        because += (
            f"; {calls.malformed_errors} call(s) on input that breaks a provider rule "
            "errored, which is not held against it"
        )
    elif verdict == "pass" and invariant != CALL_ANSWERED and counts.exercised < min_exercised:
        because += f" (fewer than the {min_exercised} wanted, within the cap of {cap} histories)"
    return verdict, because


def run_result(
    invariant: str,
    statement: str,
    counts: Counts,
    calls: Calls,
    *,
    counterexample: Counterexample | None,
    applicable: bool,
    min_exercised: int,
    cap: int,
    review: Reviewed = NO_REVIEW,
) -> InvariantResult:
    """A law's result in a run: broken, not applicable, or what its counts earn (review where it
    held beside items the reading could not settle)."""
    if counterexample is not None:
        if invariant == CALL_ANSWERED and every_call_failed(counts.answered, calls.statuses):
            # Not one call answered: nothing was judged, and the run says so (exit 3); the
            # corpus keeps the failing call all the same.
            because = f"every call failed: {counterexample.because}"
            return _result(invariant, statement, counts, "errored", because)
        return violated(invariant, statement, counts, counterexample, review=review)
    if not applicable:
        why = f"{NOT_APPLICABLE}: no budget was declared (--budget N)"
        return _result(invariant, statement, counts, "skipped", why)
    verdict, because = _reviewed(
        *quiet_verdict(invariant, counts, calls, min_exercised, cap), review
    )
    return _result(invariant, statement, counts, verdict, because, review=review)


def violated(
    invariant: str,
    statement: str,
    counts: Counts,
    counterexample: Counterexample,
    because: str | None = None,
    review: Reviewed = NO_REVIEW,
) -> InvariantResult:
    """A broken law's result: its counterexample, and its own because unless told another (its
    items for review are kept: a reader still sees them)."""
    return _result(
        invariant,
        statement,
        counts,
        "violation",
        counterexample.because if because is None else because,
        counterexample,
        review,
    )


def merged_result(
    results: Sequence[InvariantResult], smallest: Counterexample | None
) -> InvariantResult:
    """One law's results from several shards as one: what a single run over the whole would say.

    ``smallest`` is the counterexample kept of those the shards found (None when none broke it).
    Waivers and refusals are laid over afterwards (``overlaid``), once.
    """
    first = results[0]
    counts = Counts.summed(results)
    review = Reviewed.summed(results)
    if smallest is not None:
        return violated(first.invariant, first.statement, counts, smallest, review=review)
    verdicts = {result.verdict for result in results}
    if verdicts == {"skipped"} and is_not_applicable(first):
        return _result(first.invariant, first.statement, counts, "skipped", first.because)
    judged = answered_verdict(
        first.invariant,
        compactions=counts.compactions,
        unchanged=counts.unchanged,
        exercised=counts.exercised,
        examples=counts.examples,
        declined=counts.skipped,
        errored=counts.errored,
    )
    if judged is not None:
        verdict, because = _reviewed(*judged, review)
        return _result(first.invariant, first.statement, counts, verdict, because, review=review)
    for verdict in _QUIET_ORDER:
        for result in results:
            if result.verdict == verdict:
                return _result(first.invariant, first.statement, counts, verdict, result.because)
    return _result(first.invariant, first.statement, counts, first.verdict, first.because)


def is_not_applicable(result: InvariantResult) -> bool:
    """Whether a result says that its law could not apply at all (and so promises nothing)."""
    return result.verdict == "skipped" and (result.because or "").startswith(NOT_APPLICABLE)


def recorded_result(
    invariant: str,
    statement: str,
    counts: Counts,
    *,
    first: Counterexample | None,
    violations: int,
    requires_budget: bool,
    review: Reviewed = NO_REVIEW,
) -> InvariantResult:
    """A law's result over recorded compactions (an audit's log): every exercised law is judged.

    A recorded compaction happened whatever its share of the log: a run's "rarely compacted"
    rule is about a target that will not compact, and does not apply.
    """
    if first is not None:
        because = first.because
        if violations > 1:
            because += f" (and {violations - 1} more pair(s) broke it)"
        return violated(invariant, statement, counts, first, because, review)
    if requires_budget and counts.exercised == 0:
        why = f"{NOT_APPLICABLE}: no pair declared a budget (facts.budget)"
        return _result(invariant, statement, counts, "skipped", why)
    compactions = counts.compactions
    if counts.exercised:
        because = f"held on {compactions} compacted pairs; {counts.exercised} exercised it"
        verdict, because = _reviewed("pass", because, review)
        return _result(invariant, statement, counts, verdict, because, review=review)
    if compactions:
        because = f"none of the {compactions} compacted pairs could have broken it"
        return _result(invariant, statement, counts, "unknown", because)
    because = "no pair of the log was a compaction to judge"
    return _result(invariant, statement, counts, "unknown", because)


def pair_verdict(finding: Finding) -> Verdict:
    """A law's verdict on one recorded pair: broken; held, with items for review where the
    reading could not settle a ruling; passed; or "unknown" (it could not break)."""
    if finding.violations:
        return "violation"
    if finding.review:
        return "review"
    return "pass" if finding.exercised else "unknown"


def overlaid(
    result: InvariantResult, waived: str | None, model: ModelCalls | None
) -> InvariantResult:
    """A law's verdict with what the run declared over it: its waiver and the model's refusals.

    A violation of a waived law is "waived"; a pass where the model refused rounds is
    "unknown" (the rounds it would not answer were not judged: what passed may not have).
    """
    update: dict[str, object] = {"waived": waived}
    if waived is not None and result.verdict == "violation":
        update["verdict"] = "waived"
        update["because"] = f"waived ({waived}): {result.because}"
    if model is not None and model.refused and result.verdict in ("pass", "review"):
        update["verdict"] = "unknown"
        update["because"] = f"inconclusive ({model.model}: {model.reason}): {result.because}"
    return result.model_copy(update=update)


# Only the first this many kinds of failure are kept in a report: a compactor that fails in a new
# way on every call would otherwise fill it.
MAX_FAILURE_KINDS = 10
_SEQ = re.compile(r"\bseq \d+")


def failure_kind(reason: str) -> str:
    """A failed call's reason as a kind of failure: its first line, the request's seq masked.

    Two hangs, or two exits with the same code, differ only in the seq of the call they broke.
    """
    first = reason.strip().split("\n", 1)[0] or "no reason given"
    return _SEQ.sub("seq N", first)[:300]


def top_failures(failures: Counter[str]) -> dict[str, int]:
    """The most common kinds of failure, at most MAX_FAILURE_KINDS."""
    return dict(failures.most_common(MAX_FAILURE_KINDS))
