"""Repairs that bring input units back whole: the goal, the system prompt, a user turn, the tail.

Each finds, through the input's reading, the unit a lost message was read from, and puts it back
verbatim where it stood among the kept units (``placement``), in any format: a chat message, an
Anthropic message, a Responses item, a Gemini content, or the request's system field.
"""

from __future__ import annotations

from compactcheck.invariants import (
    AssistantMessage,
    Facts,
    SystemMessage,
    UserMessage,
)
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.restoring import brought, restored, source_unit, units_reading
from compactcheck.observed.repair.side import SYSTEM_FIELD, Side, Unit, data, matched


def _bring_back(before: Side, after: Side, units: list[int], what: str) -> Edit | None:
    side = restored(before, after, units)
    if side is None:
        return None
    return Edit(side, what, added=data(*brought(before, after, side)))


def restore_goal(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back the input's first user message, which states the goal, verbatim."""
    del facts
    first = next((i for i, m in enumerate(before.reading) if isinstance(m, UserMessage)), None)
    unit = source_unit(before, first) if first is not None else None
    if unit is None:
        return None
    return _bring_back(
        before, after, [unit], f"brought back the first user message (input unit {unit}), the goal"
    )


def restore_system_prompt(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put the input's system prompt back where the answer lost it: its field, its messages."""
    del facts
    side = after
    added: list[object] = []
    field = SYSTEM_FIELD[before.format]
    if field is not None and before.system is not None and after.system is None:
        side = side.with_system(before.system)
        added.append(before.system)
    back = restored(before, side, units_reading(before, SystemMessage))
    if back is not None:
        added += brought(before, side, back)
        side = back
    if not added:
        return None
    return Edit(side, "brought back the system prompt", added=data(*added))


def replace_system_prompt(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put the input's system prompt in place of a rewritten one (its rules relaxed or lost)."""
    del facts
    side = after
    added: list[object] = []
    removed: list[object] = []
    if SYSTEM_FIELD[before.format] is not None and after.system != before.system:
        if before.system is not None:
            added.append(before.system)
        if after.system is not None:
            removed.append(after.system)
        side = side.with_system(before.system)
    kept = matched(before, side)
    systems = set(units_reading(side, SystemMessage))
    rewritten = [j for j in systems if kept[j] is None]
    if rewritten:
        removed += [side.units[j] for j in rewritten]
        side = side.with_units(u for j, u in enumerate(side.units) if j not in set(rewritten))
    back = restored(before, side, units_reading(before, SystemMessage))
    if back is not None:
        added += brought(before, side, back)
        side = back
    if not added:
        return None
    return Edit(side, "put the input's system prompt in place of a rewritten one", data(*added),
                data(*removed))  # fmt: skip


def restore_user_turn(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back the input's last user message, the turn the agent is answering."""
    del facts
    users = units_reading(before, UserMessage)
    if not users:
        return None
    return _bring_back(
        before, after, users[-1:], f"brought back the last user message (input unit {users[-1]})"
    )


def _opening(side: Side) -> int | None:
    """The reading index of the first message after the system prompt."""
    return next((i for i, m in enumerate(side.reading) if not isinstance(m, SystemMessage)), None)


def restore_opening_user_turn(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back the user message the input had before the answer's opening assistant turn."""
    del facts
    opening = _opening(after)
    if opening is None or not isinstance(after.reading[opening], AssistantMessage):
        return None
    unit = source_unit(after, opening)
    if unit is None:
        return None
    kept = matched(before, after)
    origin = next((at for at in kept[unit:] if at is not None), len(before.units))
    users = [i for i in units_reading(before, UserMessage) if i < origin]
    if not users:
        return None
    return _bring_back(
        before,
        after,
        users[-1:],
        f"brought back the user message (input unit {users[-1]}) before the opening assistant turn",
    )


def take_out_opening_assistant(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out the units before the answer's first user message, after its system prompt."""
    del facts
    opening = _opening(after)
    if opening is None or not isinstance(after.reading[opening], AssistantMessage):
        return None
    start = source_unit(after, opening)
    users = [u for u in units_reading(after, UserMessage) if start is not None and u > start]
    if start is None or not users:
        return None
    cut = range(start, users[0])
    if len(after.units) - 1 in cut:
        return None
    return Edit(
        after.with_units(u for j, u in enumerate(after.units) if j not in cut),
        f"took out the {len(cut)} unit(s) before the first user message",
        removed=data(*(after.units[j] for j in cut)),
    )


def restore_last_message(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put the input's last unit back at the end of the answer (from wherever it stood)."""
    del facts
    if not before.units or (after.units and after.keys[-1] == before.keys[-1]):
        return None
    last = before.keys[-1]
    moved = [u for u, key in zip(after.units, after.keys, strict=True) if key == last]
    units: list[Unit] = [u for u, key in zip(after.units, after.keys, strict=True) if key != last]
    what = (
        "moved the input's last message back to the end"
        if moved
        else ("brought back the input's last message at the end")
    )
    return Edit(after.with_units([*units, before.units[-1]]), what, added=data(before.units[-1]))


__all__ = [
    "replace_system_prompt",
    "restore_goal",
    "restore_last_message",
    "restore_opening_user_turn",
    "restore_system_prompt",
    "restore_user_turn",
    "take_out_opening_assistant",
]
