"""Repairs of Anthropic Messages' block rules: thinking blocks (never last in a turn, leading the
tool turn, carried unmodified), opaque blocks carried, non-empty content, cache markers.

Thinking is opaque: a repair never writes a thinking block, it only brings the input's back
(byte for byte) or takes one out.
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import Facts
from compactcheck.observed.repair.anthropic_pairing import blocks, kind, turns
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, canonical, data

_THINKING = ("thinking", "redacted_thinking")
_OPAQUE = ("redacted_thinking", "compaction")
CACHE_LIMIT = 4


def _replaced(units: list[Unit], edited: dict[int, list[dict[str, Any]]]) -> list[Unit]:
    """The history with some messages' blocks replaced; a message left empty is dropped."""
    out = []
    for index, unit in enumerate(units):
        if index not in edited:
            out.append(unit)
        elif edited[index]:
            out.append({**unit, "content": edited[index]})
    return out


def _ends_on_thinking(unit: Unit) -> bool:
    own = blocks(unit)
    return unit.get("role") == "assistant" and bool(own) and kind(own[-1]) in _THINKING


def take_out_trailing_thinking(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out the thinking blocks an assistant message ends on (the message, if only they)."""
    del before, facts
    units = after.units
    edited: dict[int, list[dict[str, Any]]] = {}
    removed: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        if not _ends_on_thinking(unit):
            continue
        own = blocks(unit)
        cut = len(own)
        while cut > 0 and kind(own[cut - 1]) in _THINKING:
            cut -= 1
        removed += own[cut:]
        edited[index] = own[:cut]
    if not edited:
        return None
    return Edit(
        after.with_units(_replaced(units, edited)),
        "took out the thinking block(s) an assistant message ended on",
        removed=data(*removed),
    )


def _holder(before: Side, block: dict[str, Any]) -> int | None:
    """The input message that holds ``block`` (the same JSON)."""
    wanted = canonical(block)
    for index, unit in enumerate(before.units):
        if any(canonical(b) == wanted for b in blocks(unit)):
            return index
    return None


def restore_thinking_turns(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back, from the input, the whole assistant message a trailing thinking block came from
    (what the answer cut after the thinking)."""
    del facts
    units = after.units
    out = list(units)
    added: list[Unit] = []
    present = set(after.keys)
    for index, unit in enumerate(units):
        if not _ends_on_thinking(unit):
            continue
        source = _holder(before, blocks(unit)[-1])
        if source is not None and before.keys[source] not in present:
            out[index] = before.units[source]
            added.append(before.units[source])
    if not added:
        return None
    return Edit(
        after.with_units(out),
        "put back from the input the assistant message(s) a trailing thinking block came from",
        added=data(*added),
    )


def _tool_turn(units: list[Unit]) -> list[int] | None:
    """The assistant turn whose tool calls the last user turn answers."""
    grouped = turns(units)
    if len(grouped) < 2 or units[grouped[-1][0]].get("role") != "user":
        return None
    if not any(kind(b) == "tool_result" for i in grouped[-1] for b in blocks(units[i])):
        return None
    turn = grouped[-2]
    return turn if units[turn[0]].get("role") == "assistant" else None


def _leading_thinking(unit: Unit) -> list[dict[str, Any]]:
    lead: list[dict[str, Any]] = []
    for b in blocks(unit):
        if kind(b) not in _THINKING:
            break
        lead.append(b)
    return lead


def bring_back_leading_thinking(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put the input's thinking back at the start of the tool turn that lost it: the input turn's
    first message (its thinking leading), or its leading thinking blocks when that message is
    kept elsewhere."""
    del facts
    units = after.units
    turn = _tool_turn(units)
    if turn is None:
        return None
    first = blocks(units[turn[0]])
    if first and kind(first[0]) in _THINKING:
        return None
    ids = {str(b.get("id")) for i in turn for b in blocks(units[i]) if kind(b) == "tool_use"}
    source = next(
        (
            group
            for group in turns(before.units)
            if before.units[group[0]].get("role") == "assistant"
            and any(
                kind(b) == "tool_use" and str(b.get("id")) in ids
                for i in group
                for b in blocks(before.units[i])
            )
        ),
        None,
    )
    if source is None:
        return None
    opening = before.units[source[0]]
    lead = _leading_thinking(opening)
    if not lead:
        return None
    out = list(units)
    if before.keys[source[0]] not in set(after.keys):
        out.insert(turn[0], opening)
        return Edit(
            after.with_units(out),
            "brought back the input's message that opened the tool turn with its thinking",
            added=data(opening),
        )
    kept = {canonical(b) for b in lead}
    out[turn[0]] = {
        **units[turn[0]],
        "content": [*lead, *(b for b in first if canonical(b) not in kept)],
    }
    return Edit(
        after.with_units(out),
        "put the input's thinking block(s) back at the start of the tool turn",
        added=data(*lead),
    )


def restore_thinking_blocks(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back the input's thinking block in place of an edited one with its signature; take
    out one that matches no input block."""
    del facts
    given = {
        str(b.get("signature")): b
        for unit in before.units
        for b in blocks(unit)
        if kind(b) == "thinking"
    }
    known = {canonical(b) for b in given.values()}
    units = after.units
    edited: dict[int, list[dict[str, Any]]] = {}
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        own = blocks(unit)
        rebuilt = []
        for b in own:
            if kind(b) != "thinking" or canonical(b) in known:
                rebuilt.append(b)
                continue
            removed.append(b)
            original = given.get(str(b.get("signature")))
            if original is not None:
                rebuilt.append(original)
                added.append(original)
        if rebuilt != own:
            edited[index] = rebuilt
    if not removed:
        return None
    return Edit(
        after.with_units(_replaced(units, edited)),
        "put back the input's thinking block(s) in place of edited ones",
        added=data(*added),
        removed=data(*removed),
    )


def take_out_edited_opaque_blocks(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out redacted thinking and compaction blocks that are not byte for byte the input's."""
    del facts
    given = {canonical(b) for unit in before.units for b in blocks(unit) if kind(b) in _OPAQUE}
    units = after.units
    edited: dict[int, list[dict[str, Any]]] = {}
    removed: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        own = blocks(unit)
        stray = [b for b in own if kind(b) in _OPAQUE and canonical(b) not in given]
        if stray:
            removed += stray
            edited[index] = [b for b in own if not any(b is s for s in stray)]
    if not edited:
        return None
    return Edit(
        after.with_units(_replaced(units, edited)),
        "took out opaque block(s) that were edited or made up",
        removed=data(*removed),
    )


def _blank(block: Any) -> bool:
    """A text block that is empty or only whitespace."""
    return (
        isinstance(block, dict) and kind(block) == "text" and not str(block.get("text", "")).strip()
    )


def take_out_empty_content(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out empty text blocks, and messages left with no content (a final assistant one
    aside)."""
    del before, facts
    units = after.units
    out: list[Unit] = []
    removed: list[Any] = []
    for index, unit in enumerate(units):
        content = unit.get("content")
        final = index == len(units) - 1 and unit.get("role") == "assistant"
        if isinstance(content, list):
            kept = [b for b in content if not _blank(b)]
            removed += [b for b in content if not any(b is k for k in kept)]
            content = kept
            unit = {**unit, "content": kept}
        if (content == "" or content == []) and not final:
            removed.append(unit)
            continue
        out.append(unit)
    if not removed:
        return None
    return Edit(after.with_units(out), "took out empty content", removed=data(*removed))


def _marked(unit: Unit) -> list[int]:
    return [k for k, b in enumerate(blocks(unit)) if b.get("cache_control") is not None]


def take_out_cache_marks(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take cache_control off empty text blocks and off the marks past the limit of four: first
    the marks the input did not have, then the earliest."""
    del facts
    given = {canonical(b) for unit in before.units for b in blocks(unit) if b.get("cache_control")}
    units = after.units
    places = [(i, k) for i, unit in enumerate(units) for k in _marked(unit)]
    system = after.system
    system_marks = (
        sum(1 for b in system if isinstance(b, dict) and b.get("cache_control"))
        if isinstance(system, list)
        else 0
    )
    drop: set[tuple[int, int]] = set()
    for i, k in places:
        b = blocks(units[i])[k]
        if kind(b) == "text" and not b.get("text"):
            drop.add((i, k))
    left = [p for p in places if p not in drop]
    excess = len(left) + system_marks - CACHE_LIMIT
    if excess > 0:
        new = [p for p in left if canonical(blocks(units[p[0]])[p[1]]) not in given]
        old = [p for p in left if p not in new]
        drop.update((new + old)[:excess])
    if not drop:
        return None
    out = list(units)
    removed = []
    for i in sorted({i for i, _ in drop}):
        own = blocks(units[i])
        rebuilt = []
        for k, b in enumerate(own):
            if (i, k) in drop:
                removed.append(b)
                b = {key: value for key, value in b.items() if key != "cache_control"}
            rebuilt.append(b)
        out[i] = {**units[i], "content": rebuilt}
    return Edit(
        after.with_units(out),
        f"took cache_control off {len(drop)} block(s)",
        removed=data(*removed),
    )


__all__ = [
    "bring_back_leading_thinking",
    "restore_thinking_blocks",
    "restore_thinking_turns",
    "take_out_cache_marks",
    "take_out_edited_opaque_blocks",
    "take_out_empty_content",
    "take_out_trailing_thinking",
]
