"""A superseded constraint that a message the compaction wrote restates after its own note of
the replacement: the output says it both ways.

The whole output's last word on a superseded rule decides its ruling, as a reader takes it. But
a summary that notes the replacement and then restates the old rule with no note leaves the
agent two versions in one context, whatever the messages kept beside it say: which one it
follows is not for a lexical reading to settle. Such a rule is left for review, never failed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from compactcheck.invariants.laws.messages.cause import written
from compactcheck.invariants.laws.messages.reading import Messages, label, searchable_text
from compactcheck.invariants.rulings import FactRuling, rule, statements
from compactcheck.invariants.sentences import SentenceIndex


def restated_after_note(fact: str, index: SentenceIndex) -> bool:
    """Whether the last statement of superseded ``fact`` in ``index`` restates it with no note,
    though an earlier one there notes its replacement: the text retires it, then says it anew."""
    read = statements(fact, index, superseded=True)
    if not read or read[-1][1].says != "same" or read[-1][1].noted:
        return False
    return any(st.says == "noted" for _, st in read[:-1])


def restated_after_its_note(
    before: Messages, after: Messages, made: Iterable[FactRuling]
) -> list[FactRuling]:
    """The unsure "stale" rulings of each superseded rule ruled for certain not stale (retired,
    or kept as the input's own last mention), though a message the compaction wrote notes its
    replacement and then restates it with no note.

    A summary that tells the history in order and ends before the replacement (the note is in
    the kept tail) says the rule as it stood then: that is no second version, and not asked."""
    # A certain "stale" is already a violation, and an unsure ruling already an item for review.
    retired = [r for r in made if r.kind == "superseded" and r.ruling != "stale" and r.certain]
    if not retired:
        return []
    found: list[FactRuling] = []
    own = [(i, SentenceIndex([searchable_text(after[i])])) for i in written(before, after)]
    for ruling in retired:
        for index, sentences in own:
            read = rule(ruling.fact, sentences, "superseded")
            if (
                read.ruling == "stale"
                and read.certain
                and restated_after_note(ruling.fact, sentences)
            ):
                reason = (
                    f"the {label(after[index])} at output index {index} notes its replacement, "
                    f"then restates it with no note ({read.sentence!r}): "
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


__all__ = ["restated_after_its_note", "restated_after_note"]
