"""Bringing input units back: which unit a lost message was read from, and the unit put back
where it stood, with the units its tool calls and results pair with.

A unit brought back alone could break the pairing rules (a call without its result, a result
without its call); so a unit comes back with its exchange: every unit holding a result of its
calls, or the call of its results, in the input.
"""

from __future__ import annotations

from collections.abc import Iterable

from compactcheck.invariants import AssistantMessage, ChatMessage, ToolMessage
from compactcheck.observed.repair.side import Side, inserted, placement


def source_unit(side: Side, message: int) -> int | None:
    """The first unit the reading's message ``message`` was read from (None: the system field,
    or a reading that cannot be traced)."""
    sources = side.sources
    if sources is None or not sources[message]:
        return None
    return sources[message][0]


def units_reading(side: Side, kind: type[ChatMessage]) -> list[int]:
    """The units, in order and each once, that a message of ``kind`` was read from."""
    found: dict[int, None] = {}
    for index, message in enumerate(side.reading):
        if isinstance(message, kind):
            unit = source_unit(side, index)
            if unit is not None:
                found[unit] = None
    return list(found)


def _wiring(side: Side) -> tuple[dict[int, set[str]], dict[str, set[int]]]:
    """Each unit's call ids (made or answered), and the units each call id is in."""
    ids: dict[int, set[str]] = {}
    units: dict[str, set[int]] = {}
    for index, message in enumerate(side.reading):
        sources = side.sources[index] if side.sources is not None else ()
        if isinstance(message, AssistantMessage):
            named = {call.id for call in message.tool_calls or ()}
        elif isinstance(message, ToolMessage):
            named = {message.tool_call_id}
        else:
            continue
        for unit in sources:
            ids.setdefault(unit, set()).update(named)
            for call_id in named:
                units.setdefault(call_id, set()).add(unit)
    return ids, units


def exchange(side: Side, units: Iterable[int]) -> list[int]:
    """``units`` with every unit their tool calls and results pair with, in order."""
    ids, holders = _wiring(side)
    found = set(units)
    waiting = list(found)
    while waiting:
        unit = waiting.pop()
        for call_id in ids.get(unit, ()):
            for other in holders.get(call_id, ()):
                if other not in found:
                    found.add(other)
                    waiting.append(other)
    return sorted(found)


def restored(before: Side, after: Side, units: Iterable[int], *, whole: bool = True) -> Side | None:
    """``after`` with the input units ``units`` back where they stood (with their exchanges,
    unless not ``whole``); None when all are there already."""
    wanted = exchange(before, units) if whole else sorted(set(units))
    present = set(after.keys)
    side = after
    added = False
    for index in wanted:
        if before.keys[index] in present:
            continue
        at = placement(before, side, index)
        side = side.with_units(inserted(side.units, at, [before.units[index]]))
        present.add(before.keys[index])
        added = True
    return side if added else None


def brought(before: Side, after: Side, side: Side) -> list[object]:
    """The input units ``side`` holds that ``after`` did not: what a restore added."""
    present = set(after.keys)
    held = set(side.keys)
    return [
        unit
        for unit, key in zip(before.units, before.keys, strict=True)
        if key in held and key not in present
    ]


__all__ = ["brought", "exchange", "restored", "source_unit", "units_reading"]
