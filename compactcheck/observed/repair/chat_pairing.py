"""Repairs of ``tool_pairing`` in chat completions: orphaned results and calls that lost theirs.

Either side of a broken pair can be mended two ways: take the stray half out, or bring its
counterpart back from the input. Both are offered; the mender keeps whichever leaves the answer
lawful and smaller. A result that is the input's last message is never taken out (the recent
tail must stay): its call is brought back instead.
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import Facts
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.restoring import brought, restored
from compactcheck.observed.repair.side import Side, Unit, data


def call_ids(unit: Unit) -> list[str]:
    """The ids of the tool calls a chat message makes."""
    if unit.get("role") != "assistant":
        return []
    return [str(call.get("id")) for call in unit.get("tool_calls") or ()]


def result_id(unit: Unit) -> str | None:
    """The call id a tool message answers (None for any other message)."""
    return str(unit.get("tool_call_id")) if unit.get("role") == "tool" else None


def _orphans(after: Side) -> list[int]:
    """Positions of the tool results with no call before them."""
    made: set[str] = set()
    found = []
    for index, unit in enumerate(after.units):
        answered = result_id(unit)
        if answered is not None and answered not in made:
            found.append(index)
        made.update(call_ids(unit))
    return found


def _is_tail(before: Side, after: Side, index: int) -> bool:
    """Whether the answer's unit at ``index`` is its last and is the input's last message."""
    return (
        index == len(after.units) - 1
        and bool(before.units)
        and after.keys[index] == before.keys[-1]
    )


def take_out_orphan_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out every tool result whose call is not before it (but the input's last message)."""
    del facts
    stray = [j for j in _orphans(after) if not _is_tail(before, after, j)]
    if not stray:
        return None
    gone = set(stray)
    removed = [after.units[j] for j in stray]
    ids = ", ".join(str(result_id(unit)) for unit in removed)
    return Edit(
        after.with_units(unit for j, unit in enumerate(after.units) if j not in gone),
        f"took out the tool result(s) of {ids}, whose call the answer dropped",
        removed=data(*removed),
    )


def _input_wiring(before: Side) -> tuple[dict[str, int], dict[str, int]]:
    """Where the input makes each call, and where it answers it, by unit index."""
    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for index, unit in enumerate(before.units):
        for call_id in call_ids(unit):
            calls.setdefault(call_id, index)
        answered = result_id(unit)
        if answered is not None:
            results.setdefault(answered, index)
    return calls, results


def bring_back_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the call of each orphaned result, with its other results,
    each where it stood in the input."""
    del facts
    calls, _ = _input_wiring(before)
    orphans = [j for j in _orphans(after) if result_id(after.units[j]) in calls]
    side = restored(before, after, [calls[str(result_id(after.units[j]))] for j in orphans])
    if side is None:
        return None
    ids = ", ".join(str(result_id(after.units[j])) for j in orphans)
    return Edit(
        side,
        f"brought back from the input the call(s) that the result(s) of {ids} answer",
        added=data(*brought(before, after, side)),
    )


def _lost(before: Side, after: Side) -> dict[int, list[str]]:
    """For each answer unit, the ids of its calls whose result the input had and it dropped."""
    _, results = _input_wiring(before)
    present = {result_id(unit) for unit in after.units} - {None}
    lost: dict[int, list[str]] = {}
    for index, unit in enumerate(after.units):
        missing = [c for c in call_ids(unit) if c in results and c not in present]
        if missing:
            lost[index] = missing
    return lost


def _without_calls(unit: Unit, dropped: set[str]) -> Unit | None:
    """An assistant message without some of its calls; None when nothing of it is left."""
    kept = [call for call in unit.get("tool_calls") or () if str(call.get("id")) not in dropped]
    if kept:
        return {**unit, "tool_calls": kept}
    rest: dict[str, Any] = {key: value for key, value in unit.items() if key != "tool_calls"}
    content = rest.get("content")
    return rest if content else None


def take_out_unanswered_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out each tool call whose result the answer dropped (its message, if nothing is left)."""
    del facts
    lost = _lost(before, after)
    if not lost:
        return None
    out: list[Unit] = []
    for index, unit in enumerate(after.units):
        if index in lost:
            kept = _without_calls(unit, set(lost[index]))
            if kept is not None:
                out.append(kept)
        else:
            out.append(unit)
    ids = ", ".join(call_id for ids in lost.values() for call_id in ids)
    return Edit(
        after.with_units(out),
        f"took out the tool call(s) {ids}, whose result the answer dropped",
        removed=data(*(after.units[j] for j in lost)),
    )


def bring_back_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, each result a kept call lost, where it stood in the input."""
    del facts
    lost = _lost(before, after)
    _, results = _input_wiring(before)
    wanted = [results[call_id] for ids in lost.values() for call_id in ids]
    side = restored(before, after, wanted, whole=False)
    if side is None:
        return None
    ids = ", ".join(call_id for ids in lost.values() for call_id in ids)
    return Edit(
        side,
        f"brought back from the input the result(s) of {ids}",
        added=data(*brought(before, after, side)),
    )


__all__ = [
    "bring_back_calls",
    "bring_back_results",
    "call_ids",
    "result_id",
    "take_out_orphan_results",
    "take_out_unanswered_calls",
]
