"""Items for review as every renderer shows them: each law that held beside rulings the reading
could not settle, numbered, with each item's fact, sentence, leaning and reason."""

from __future__ import annotations

from collections.abc import Sequence

from compactcheck.report.model import InvariantResult, Report, ReviewItem, TargetReport
from compactcheck.report.untrusted import safe_line

Reviewed = tuple[TargetReport, InvariantResult]


def reviews(report: Report) -> list[tuple[int, Reviewed]]:
    """The results that list items for review, numbered from 1 in report order."""
    found = [
        (target, result) for target in report.targets for result in target.results if result.review
    ]
    return list(enumerate(found, start=1))


def review_count(result: InvariantResult) -> str:
    """For example "3 items for review, 1 settled by a judge" or "25 items (20 listed)"."""
    left = result.reviewed
    settled = sum(1 for item in result.review if item.judged is not None)
    listed = len(result.review) - settled
    text = f"{left} item{'s' if left != 1 else ''} for review"
    if listed < left:
        text += f" ({listed} listed)"
    if settled:
        text += f", {settled} settled as faithful by a judge"
    return text


def item_place(item: ReviewItem) -> str:
    """Where an item was met: "round 2, output index 0", or "first in round 1, met 3 times, ..."
    for a sentence several compactions wrote (one item, however often met)."""
    where = []
    if item.round:
        where.append(f"round {item.round}" if item.met == 1 else f"first in round {item.round}")
    if item.met > 1:
        where.append(f"met {item.met} times")
    if item.message is not None:
        where.append(f"output index {item.message}")
    return ", ".join(where)


def placed(items: Sequence[ReviewItem]) -> list[tuple[ReviewItem, str]]:
    """Each item beside where it was met (``item_place``), as the HTML table shows them."""
    return [(item, item_place(item)) for item in items]


def item_lines(item: ReviewItem) -> list[str]:
    """One item: what the reading leaned to and why it is not sure, then where it read it."""
    head = f"{item.kind} {item.fact!r}: leans {item.leans}; not sure: {item.reason}"
    where = item_place(item)
    said = f"{where}: {item.sentence!r}" if item.sentence else where
    lines = [safe_line(head, 600)]
    if said:
        lines.append("  " + safe_line(said, 600))
    if item.judged is not None:
        lines.append("  " + safe_line(f"judged: {item.judged}", 600))
    return lines


def review_lines(result: InvariantResult) -> list[str]:
    """A result's items for review as plain lines, under the count."""
    lines = [review_count(result)]
    for item in result.review:
        lines += ["- " + line if n == 0 else line for n, line in enumerate(item_lines(item))]
    return lines


REVIEW_NOTE = (
    "for review: a ruling on meaning the reading could not settle (a fronted object, a hedge, a "
    "merged list...); the law held wherever it could be judged. Read the sentence beside the "
    "fact, or settle the items with --judge; --strict-review fails a law that has any"
)
"""What a reader is told once, where items for review are listed."""
