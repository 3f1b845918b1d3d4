"""Repairs of what an answer must still say: a lost constraint or must-keep identifier stated
again, a superseded constraint's reassertion, an invented rule, a weakened or changed one taken
out of the summary.

A summary is one of the answer's new units (no input unit) that holds text. Lines are only ever
added to or taken out of such a unit: a unit the answer kept from the input is never edited
(that would break ``kept_messages_verbatim`` or ``order_preserved``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from compactcheck.invariants import Facts, content_text
from compactcheck.invariants.laws.messages.content import fact_rulings, reassertions
from compactcheck.invariants.laws.messages.reading import FactLookup
from compactcheck.invariants.tokens import discriminating, position
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.restoring import brought, restored, source_unit
from compactcheck.observed.repair.side import Side, canonical, data, new_units
from compactcheck.observed.repair.text import holds_text, rewritten, with_line


def _summary(before: Side, after: Side) -> int | None:
    """The first new unit of the answer that holds text: where a line can be added."""
    return next(
        (j for j in new_units(before, after) if holds_text(after.format, after.units[j])), None
    )


def _missing_constraints(before: Side, after: Side, facts: Facts) -> list[str]:
    held = FactLookup.of(before.reading, facts.reading)
    out = FactLookup.of(after.reading, facts.reading)
    return [t for t in facts.constraints if held.holds(t) and not out.holds(t)]


def _missing_facts(before: Side, after: Side, facts: Facts) -> list[str]:
    held = FactLookup.of(before.reading, facts.reading)
    out = FactLookup.of(after.reading, facts.reading)
    wanted = dict.fromkeys(i for i in facts.must_keep if i)
    return [i for i in wanted if held.holds(i) and not out.holds(i)]


def _stating(before: Side, after: Side, texts: Sequence[str], what: str) -> Edit | None:
    """The answer's summary with one line per text added."""
    at = _summary(before, after)
    if at is None or not texts:
        return None
    unit = after.units[at]
    for text in texts:
        unit = with_line(after.format, unit, text)
    units = list(after.units)
    units[at] = unit
    return Edit(after.with_units(units), what, added=data(*texts))


def _holders(before: Side, facts: Facts, texts: Sequence[str]) -> list[int]:
    held = FactLookup.of(before.reading, facts.reading)
    found: dict[int, None] = {}
    sources = before.sources or ()
    for text in texts:
        message = held.holding(text)
        if message is None or not sources or not sources[message]:
            continue
        # A run of Responses calls is one message read from several items: the one that says it.
        units = sources[message]
        found[next((u for u in units if text in canonical(before.units[u])), units[0])] = None
    return sorted(found)


def _bring_back_holders(before: Side, after: Side, units: list[int], what: str) -> Edit | None:
    side = restored(before, after, units)
    if side is None:
        return None
    return Edit(side, what, added=data(*brought(before, after, side)))


def state_constraints_in_summary(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Add to the summary a line stating each lost current constraint, verbatim."""
    lost = _missing_constraints(before, after, facts)
    return _stating(before, after, lost, "stated the lost constraint(s) in the summary")


def restore_constraint_messages(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the message that stated each lost current constraint."""
    units = _holders(before, facts, _missing_constraints(before, after, facts))
    return _bring_back_holders(
        before, after, units, "brought back the message(s) that stated the lost constraint(s)"
    )


def state_facts_in_summary(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Add to the summary a line naming the lost must-keep identifiers, verbatim."""
    lost = _missing_facts(before, after, facts)
    line = [f"Still relevant: {', '.join(lost)}"] if lost else []
    at = _summary(before, after)
    edit = _stating(before, after, line, "named the lost must-keep identifier(s) in the summary")
    return edit if at is not None else None


def restore_fact_messages(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the message that first held each lost must-keep identifier."""
    units = _holders(before, facts, _missing_facts(before, after, facts))
    return _bring_back_holders(
        before, after, units, "brought back the message(s) holding lost must-keep identifiers"
    )


def _first_on(line: str, texts: Sequence[str]) -> str | None:
    """The constraint a line asserts: the one it names first (verbatim, else by its tokens)."""
    places = []
    for text in texts:
        at = line.find(text)
        if at < 0:
            found = position(discriminating(text, [t for t in texts if t != text]), line)
            at = -1 if found is None else found
        if at >= 0:
            places.append((at, text))
    return min(places)[1] if places else None


def _edited_summaries(
    before: Side, after: Side, messages: dict[int, Callable[[str], str]]
) -> tuple[Side, list[str]] | None:
    """The answer with each summary unit behind a reading message rewritten; the old texts."""
    fresh = set(new_units(before, after))
    units = list(after.units)
    old: list[str] = []
    for message, rewrite in messages.items():
        unit = source_unit(after, message)
        if unit is None or unit not in fresh:
            continue
        changed = rewritten(after.format, units[unit], rewrite)
        if changed != units[unit]:
            old.append(content_text(after.reading[message].content))
            units[unit] = changed
    return (after.with_units(units), old) if old else None


def take_out_stale_constraint_lines(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out of the summary the lines that assert a superseded constraint as current."""
    read = reassertions(before.reading, after.reading, facts)
    if not read.asserted:
        return None
    texts = [*facts.constraints, *read.stale]
    stale = {text for text, _, _ in read.asserted}
    gone: list[str] = []

    def rewrite(text: str) -> str:
        kept = []
        for line in text.split("\n"):
            if _first_on(line, texts) in stale:
                gone.append(line)
            else:
                kept.append(line)
        return "\n".join(kept)

    edited = _edited_summaries(before, after, {now.index: rewrite for _, now, _ in read.asserted})
    if edited is None or not gone:
        return None
    return Edit(edited[0], "took out the summary line(s) reasserting superseded constraint(s)",
                removed=data(*gone))  # fmt: skip


def _replacing(before: Side, after: Side, facts: Facts) -> list[int]:
    read = reassertions(before.reading, after.reading, facts)
    return sorted(
        {
            unit
            for _, _, then in read.asserted
            if then is not None and (unit := source_unit(before, then.index)) is not None
        }
    )


def restore_replacing_messages(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the message whose mention of a superseded constraint the
    answer dropped, leaving an older mention (a system prompt's) to assert it again; and so on,
    while a message brought back asserts another value a later one replaced."""
    side = after
    for _ in range(len(before.units)):
        back = restored(before, side, _replacing(before, side, facts))
        if back is None:
            break
        side = back
    if side is after:
        return None
    return Edit(
        side,
        "brought back the message(s) that replaced superseded constraint(s)",
        added=data(*brought(before, after, side)),
    )


def _sentences(
    before: Side, after: Side, facts: Facts, rulings: Sequence[str], replace: bool
) -> tuple[Side, list[str]] | None:
    made = [
        r for r in fact_rulings(before.reading, after.reading, facts)
        if r.ruling in rulings and r.message is not None and r.sentence
    ]  # fmt: skip
    if not made:
        return None
    by_message: dict[int, list[tuple[str, str]]] = {}
    for r in made:
        assert r.message is not None
        assert r.sentence is not None
        by_message.setdefault(r.message, []).append((r.sentence, r.fact if replace else ""))

    def rewriter(pairs: list[tuple[str, str]]) -> Callable[[str], str]:
        def rewrite(text: str) -> str:
            for sentence, instead in pairs:
                text = text.replace(sentence, instead)
            return re.sub(r"\n{2,}", "\n", text).strip("\n")

        return rewrite

    edited = _edited_summaries(
        before, after, {message: rewriter(pairs) for message, pairs in by_message.items()}
    )
    return None if edited is None else (edited[0], [r.sentence or "" for r in made])


def take_out_invented_constraints(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out of the summary each sentence stating a rule or goal nobody gave."""
    found = _sentences(before, after, facts, ("invented",), replace=False)
    if found is None:
        return None
    return Edit(found[0], "took the invented rule(s) out of the summary", removed=data(*found[1]))


def restate_weakened_constraints(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put each current constraint, verbatim, in place of the summary's weakened restatement."""
    found = _sentences(before, after, facts, ("weakened",), replace=True)
    if found is None:
        return None
    return Edit(found[0], "restated weakened constraint(s) verbatim", removed=data(*found[1]))


def restate_changed_constraints(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put each current constraint, verbatim, in place of the summary's changed or contradicted
    restatement."""
    found = _sentences(before, after, facts, ("changed", "contradicted"), replace=True)
    if found is None:
        return None
    return Edit(found[0], "restated changed constraint(s) verbatim", removed=data(*found[1]))


__all__ = [
    "restate_changed_constraints",
    "restate_weakened_constraints",
    "restore_constraint_messages",
    "restore_fact_messages",
    "restore_replacing_messages",
    "state_constraints_in_summary",
    "state_facts_in_summary",
    "take_out_invented_constraints",
    "take_out_stale_constraint_lines",
]
