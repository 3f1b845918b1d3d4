"""A superseded constraint that a message the compaction wrote restates after its replacement,
though a later message retires it again: the output says it both ways.

The whole output's last word on a superseded rule decides its ruling, as a reader takes it. But
a summary whose own last word restates the old rule, with no note, followed by a kept message
that notes the replacement once more, leaves the agent two versions in one context: which one
it follows is not for a lexical reading to settle. Such a rule is left for review, never failed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from compactcheck.invariants.laws.messages.cause import written
from compactcheck.invariants.laws.messages.reading import Messages, label, searchable_text
from compactcheck.invariants.rulings import FactRuling, rule
from compactcheck.invariants.sentences import SentenceIndex


def restated_then_retired(
    before: Messages, after: Messages, made: Iterable[FactRuling]
) -> list[FactRuling]:
    """The unsure "stale" rulings of each superseded rule the output retires for certain, though a
    message the compaction wrote has, as its own last word, a restatement of it with no note."""
    retired = [r for r in made if r.kind == "superseded" and r.ruling == "retired" and r.certain]
    if not retired:
        return []
    found: list[FactRuling] = []
    own = [(i, SentenceIndex([searchable_text(after[i])])) for i in written(before, after)]
    for ruling in retired:
        for index, sentences in own:
            read = rule(ruling.fact, sentences, "superseded")
            if read.ruling == "stale" and read.certain:
                reason = (
                    f"the {label(after[index])} at output index {index} restates it with no "
                    f"replacement note ({read.sentence!r}), and a later message retires it: "
                    "the output says it both ways"
                )
                found.append(
                    replace(
                        ruling,
                        ruling="stale",
                        certainty="unsure",
                        sentence=read.sentence,
                        message=index,
                        reason=reason,
                    )
                )
                break
    return found


__all__ = ["restated_then_retired"]
