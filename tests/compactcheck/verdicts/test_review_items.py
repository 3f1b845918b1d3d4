"""Items for review as a reader meets them: a sentence every round repeats is one item, with how
often it was met, in a run, in an audit's tally and in a merge of shards."""

from __future__ import annotations

from compactcheck.render.review import item_lines
from compactcheck.report.model import InvariantResult, ReviewItem
from compactcheck.verdicts.counts import Reviewed, ReviewKept

HEDGED = ReviewItem(
    fact="Do not touch the public API",
    kind="constraint",
    leans="weakened",
    reason="'generally' in 'Generally, leave the public API alone' may soften it",
    sentence="Generally, leave the public API alone.",
    message=1,
    round=1,
)
OPENER = ReviewItem(
    fact="Staging is frozen",
    kind="invented",
    leans="invented",
    reason="it may state a rule nobody gave",
    sentence="Staging is frozen.",
    message=0,
    round=2,
)


def _in_round(item: ReviewItem, round: int, message: int = 1) -> ReviewItem:
    return item.model_copy(update={"round": round, "message": message})


def test_the_same_sentence_met_in_three_rounds_is_one_item_met_three_times() -> None:
    kept = ReviewKept(cap=10)
    kept.add([HEDGED, OPENER])
    kept.add([_in_round(HEDGED, 2, message=0)])
    kept.add([_in_round(HEDGED, 3)])
    assert kept.count == 2
    first, second = kept.items
    assert (first.round, first.message, first.met) == (1, 1, 3)
    assert second == OPENER
    lines = item_lines(first)
    assert lines[1].startswith("  first in round 1, met 3 times, output index 1: ")
    assert item_lines(OPENER)[1].startswith("  round 2, output index 0: ")


def test_another_reason_or_fact_is_another_item() -> None:
    kept = ReviewKept(cap=10)
    kept.add([HEDGED, HEDGED.model_copy(update={"reason": "a hedge"})])
    kept.add([HEDGED.model_copy(update={"fact": "Use Python 3.11"})])
    assert kept.count == 3
    assert [item.met for item in kept.items] == [1, 1, 1]


def test_items_beyond_the_cap_are_counted_once_each() -> None:
    kept = ReviewKept(cap=1)
    kept.add([HEDGED, OPENER, _in_round(OPENER, 5), OPENER.model_copy(update={"fact": "x"})])
    assert [item.fact for item in kept.items] == [HEDGED.fact]
    assert kept.count == 3


def _shard(*items: ReviewItem) -> InvariantResult:
    return InvariantResult(
        invariant="constraints_not_weakened",
        statement="no constraint is weakened",
        examples=10,
        exercised=5,
        compactions=5,
        unchanged=0,
        errored=0,
        verdict="review",
        because="held",
        review=list(items),
        reviewed=len(items),
    )


def test_a_merge_of_shards_lists_an_item_both_met_once_and_counts_it_once() -> None:
    merged = Reviewed.summed(
        [_shard(HEDGED), _shard(_in_round(HEDGED, 4), OPENER.model_copy(update={"met": 2}))]
    )
    assert merged.count == 2
    assert [(item.fact, item.round, item.met) for item in merged.items] == [
        (HEDGED.fact, 1, 2),
        (OPENER.fact, 2, 2),
    ]
