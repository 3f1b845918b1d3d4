"""Repairs of Anthropic Messages' tool rules: uses answered next, results after their use,
results first in their turn, ids unique, server tool results beside their use.

The API joins consecutive messages of one role into one turn, and so do these repairs when they
read a history; they edit blocks inside messages, and drop a message an edit leaves empty (or
holding thinking alone, which the API rejects as the last block of a turn).
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import Facts
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, data

_THINKING = ("thinking", "redacted_thinking")


def blocks(unit: Unit) -> list[dict[str, Any]]:
    """A message's content as blocks (a string is one text block)."""
    content = unit.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or () if isinstance(block, dict)]


def with_blocks(unit: Unit, kept: list[dict[str, Any]]) -> Unit | None:
    """The message holding ``kept``; None when nothing readable is left of it."""
    if not kept or all(block.get("type") in _THINKING for block in kept):
        return None
    return {**unit, "content": kept}


def kind(block: dict[str, Any]) -> str:
    """A block's type."""
    return str(block.get("type"))


def turns(units: list[Unit]) -> list[list[int]]:
    """Consecutive messages of one role, as the API joins them: their indexes."""
    out: list[list[int]] = []
    for index, unit in enumerate(units):
        if out and units[out[-1][0]].get("role") == unit.get("role"):
            out[-1].append(index)
        else:
            out.append([index])
    return out


def _uses(units: list[Unit], turn: list[int]) -> set[str]:
    return {str(b.get("id")) for i in turn for b in blocks(units[i]) if kind(b) == "tool_use"}


def _results(units: list[Unit], turn: list[int]) -> set[str]:
    return {
        str(b.get("tool_use_id"))
        for i in turn
        for b in blocks(units[i])
        if kind(b) == "tool_result"
    }


def rebuilt(
    units: list[Unit], edited: dict[int, list[dict[str, Any]]]
) -> tuple[list[Unit], list[Unit]]:
    """The history with some messages' blocks replaced (emptied ones dropped), and those gone."""
    out: list[Unit] = []
    gone: list[Unit] = []
    for index, unit in enumerate(units):
        if index not in edited:
            out.append(unit)
            continue
        kept = with_blocks(unit, edited[index])
        if kept is None:
            gone.append(unit)
        else:
            out.append(kept)
    return out, gone


def _orphan_results(units: list[Unit]) -> dict[int, set[str]]:
    """For each user message, the ids of its tool results with no use in the turn before."""
    found: dict[int, set[str]] = {}
    grouped = turns(units)
    for at, turn in enumerate(grouped):
        if units[turn[0]].get("role") != "user":
            continue
        previous = grouped[at - 1] if at > 0 else []
        made = _uses(units, previous) if previous else set()
        for index in turn:
            stray = {
                str(b.get("tool_use_id"))
                for b in blocks(units[index])
                if kind(b) == "tool_result" and str(b.get("tool_use_id")) not in made
            }
            if stray:
                found[index] = stray
    return found


def take_out_orphan_tool_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out each tool_result with no tool_use in the assistant turn before it."""
    del facts
    units = after.units
    stray = _orphan_results(units)
    last = len(units) - 1
    if last in stray and before.units and after.keys[last] == before.keys[-1]:
        del stray[last]
    if not stray:
        return None
    edited = {
        index: [
            b
            for b in blocks(units[index])
            if not (kind(b) == "tool_result" and str(b.get("tool_use_id")) in ids)
        ]
        for index, ids in stray.items()
    }
    out, _ = rebuilt(units, edited)
    names = ", ".join(sorted(i for ids in stray.values() for i in ids))
    removed = [
        b
        for index, ids in stray.items()
        for b in blocks(units[index])
        if kind(b) == "tool_result" and str(b.get("tool_use_id")) in ids
    ]
    return Edit(
        after.with_units(out),
        f"took out the tool_result block(s) of {names}, whose tool_use the answer dropped",
        removed=data(*removed),
    )


def _input_uses(before: Side) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, unit in enumerate(before.units):
        if unit.get("role") == "assistant":
            for b in blocks(unit):
                if kind(b) == "tool_use":
                    found.setdefault(str(b.get("id")), index)
    return found


def bring_back_tool_uses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the assistant message whose tool_use an orphan answers."""
    del facts
    uses = _input_uses(before)
    units = after.units
    stray = _orphan_results(units)
    present = set(after.keys)
    wanted: dict[int, int] = {}
    for index, ids in stray.items():
        for use_id in sorted(ids):
            source = uses.get(use_id)
            if source is not None and before.keys[source] not in present:
                wanted.setdefault(index, source)
    if not wanted:
        return None
    out: list[Unit] = []
    added: list[Unit] = []
    for index, unit in enumerate(units):
        if index in wanted and before.units[wanted[index]] not in added:
            out.append(before.units[wanted[index]])
            added.append(before.units[wanted[index]])
        out.append(unit)
    return Edit(
        after.with_units(out),
        "brought back from the input the assistant message(s) whose tool_use the orphaned "
        "result(s) answer",
        added=data(*added),
    )


def _unanswered(units: list[Unit]) -> dict[int, set[str]]:
    """For each assistant message, its tool_use ids the next turn does not answer."""
    found: dict[int, set[str]] = {}
    grouped = turns(units)
    for at, turn in enumerate(grouped):
        if units[turn[0]].get("role") != "assistant":
            continue
        answered = _results(units, grouped[at + 1]) if at + 1 < len(grouped) else set()
        for index in turn:
            missing = {
                str(b.get("id"))
                for b in blocks(units[index])
                if kind(b) == "tool_use" and str(b.get("id")) not in answered
            }
            if missing:
                found[index] = missing
    return found


def take_out_unanswered_tool_uses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out each tool_use the next turn does not answer (its message, if nothing is left)."""
    del before, facts
    units = after.units
    missing = _unanswered(units)
    if not missing:
        return None
    edited = {
        index: [
            b for b in blocks(units[index]) if not (kind(b) == "tool_use" and b.get("id") in ids)
        ]
        for index, ids in missing.items()
    }
    out, _ = rebuilt(units, edited)
    names = ", ".join(sorted(i for ids in missing.values() for i in ids))
    return Edit(
        after.with_units(out),
        f"took out the tool_use block(s) {names}, which the next turn does not answer",
        removed=data(*(b for index in missing for b in blocks(units[index])
                       if kind(b) == "tool_use" and b.get("id") in missing[index])),
    )  # fmt: skip


def _input_results(before: Side) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for unit in before.units:
        if unit.get("role") == "user":
            for b in blocks(unit):
                if kind(b) == "tool_result":
                    found.setdefault(str(b.get("tool_use_id")), b)
    return found


def bring_back_tool_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the tool_result of each use the next turn does not answer:
    at the front of the next user message, or in a user message of their own."""
    del facts
    units = after.units
    missing = _unanswered(units)
    results = _input_results(before)
    wanted = {i: [results[u] for u in sorted(ids) if u in results] for i, ids in missing.items()}
    wanted = {i: back for i, back in wanted.items() if back}
    if not wanted:
        return None
    grouped = turns(units)
    out = list(units)
    added: list[dict[str, Any]] = []
    # From the end, so that earlier positions stay put.
    for turn in reversed(grouped):
        back = [b for i in turn for b in wanted.get(i, [])]
        if not back:
            continue
        added[:0] = back
        after_turn = turn[-1] + 1
        if after_turn < len(out) and out[after_turn].get("role") == "user":
            target = out[after_turn]
            own = blocks(target)
            lead = next((k for k, b in enumerate(own) if kind(b) != "tool_result"), len(own))
            out[after_turn] = {**target, "content": [*own[:lead], *back, *own[lead:]]}
        else:
            out.insert(after_turn, {"role": "user", "content": back})
    return Edit(
        after.with_units(out),
        "brought back from the input the tool_result block(s) the next turn lacked",
        added=data(*added),
    )


def _early(units: list[Unit], index: int) -> list[int]:
    """Positions of the non-result blocks before a user message's last tool_result."""
    own = blocks(units[index])
    last = max((k for k, b in enumerate(own) if kind(b) == "tool_result"), default=-1)
    return [k for k in range(last) if kind(own[k]) != "tool_result"]


def take_out_notes_before_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out the text blocks a user message puts before its tool_result blocks."""
    del before, facts
    units = after.units
    early = {i: _early(units, i) for i, u in enumerate(units) if u.get("role") == "user"}
    early = {
        i: ks
        for i, ks in early.items()
        if ks and all(kind(blocks(units[i])[k]) == "text" for k in ks)
    }
    if not early:
        return None
    edited = {
        i: [b for k, b in enumerate(blocks(units[i])) if k not in set(ks)]
        for i, ks in early.items()
    }
    out, _ = rebuilt(units, edited)
    return Edit(
        after.with_units(out),
        "took out the text block(s) standing before tool_result blocks",
        removed=data(*(blocks(units[i])[k] for i, ks in early.items() for k in ks)),
    )  # fmt: skip


def move_tool_results_first(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Move each user message's tool_result blocks to its front, the rest after them."""
    del before, facts
    units = after.units
    early = [i for i, u in enumerate(units) if u.get("role") == "user" and _early(units, i)]
    if not early:
        return None
    out = list(units)
    for i in early:
        own = blocks(units[i])
        first = [b for b in own if kind(b) == "tool_result"]
        out[i] = {**units[i], "content": [*first, *(b for b in own if kind(b) != "tool_result")]}
    return Edit(after.with_units(out), "moved the tool_result blocks to the front of their turn")


def take_out_repeated_tool_uses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out a tool_use whose id an earlier one has, with the result that answers it."""
    del before, facts
    units = after.units
    seen: set[str] = set()
    edited: dict[int, list[dict[str, Any]]] = {}
    owed: set[str] = set()
    removed: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        kept = []
        for b in blocks(unit):
            if kind(b) in ("tool_use", "server_tool_use"):
                use_id = str(b.get("id"))
                if use_id in seen:
                    owed.add(use_id)
                    removed.append(b)
                    continue
                seen.add(use_id)
            elif kind(b) == "tool_result" and str(b.get("tool_use_id")) in owed:
                owed.discard(str(b.get("tool_use_id")))
                removed.append(b)
                continue
            kept.append(b)
        if len(kept) != len(blocks(unit)):
            edited[index] = kept
    if not edited:
        return None
    out, _ = rebuilt(units, edited)
    return Edit(
        after.with_units(out),
        "took out the repeated tool_use block(s) and the results answering them",
        removed=data(*removed),
    )


__all__ = [
    "blocks",
    "bring_back_tool_results",
    "bring_back_tool_uses",
    "kind",
    "move_tool_results_first",
    "rebuilt",
    "take_out_notes_before_results",
    "take_out_orphan_tool_results",
    "take_out_repeated_tool_uses",
    "take_out_unanswered_tool_uses",
    "turns",
    "with_blocks",
]
