"""Repairs of Gemini contents rules: function call turns answered by as many responses, in order
after a user or response turn; non-empty parts; user and model roles; response ids; thought
signatures carried on the parts they came with.

A thought signature is opaque: a repair puts the input's back on the part it came with, or takes
one off a part it was moved to, and never writes one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactcheck.invariants import Facts
from compactcheck.invariants.formats import gemini
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, canonical, data


def parts(content: Unit) -> list[dict[str, Any]]:
    """A content's parts."""
    return [part for part in content.get("parts") or () if isinstance(part, dict)]


def calls(content: Unit) -> list[dict[str, Any]]:
    """A content's function call parts."""
    return [part for part in parts(content) if "functionCall" in part]


def responses(content: Unit) -> list[dict[str, Any]]:
    """A content's function response parts."""
    return [part for part in parts(content) if "functionResponse" in part]


def _without(after: Side, gone: Iterable[int], what: str) -> Edit | None:
    drop = set(gone)
    if not drop:
        return None
    units = after.units
    return Edit(
        after.with_units(u for j, u in enumerate(units) if j not in drop),
        what,
        removed=data(*(units[j] for j in sorted(drop))),
    )


def _with_parts(content: Unit, kept: list[dict[str, Any]]) -> Unit | None:
    return {**content, "parts": kept} if kept else None


def _miscounted(units: list[Unit]) -> list[int]:
    """Positions of the call turns not answered by as many responses in the next turn."""
    return [
        j for j, content in enumerate(units)
        if calls(content)
        and len(responses(units[j + 1]) if j + 1 < len(units) else []) != len(calls(content))
    ]  # fmt: skip


def bring_back_function_responses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the response turn of a call turn answered short: in place of
    the answer's turn when that holds only parts of the input's."""
    del facts
    position = {key: i for i, key in enumerate(before.keys)}
    units = list(after.units)
    added: list[Unit] = []
    removed: list[Unit] = []
    for j in reversed(_miscounted(units)):
        at = position.get(after.keys[j])
        if at is None or at + 1 >= len(before.units):
            continue
        answer = before.units[at + 1]
        if len(responses(answer)) != len(calls(units[j])):
            continue
        following = units[j + 1] if j + 1 < len(units) else None
        held = {canonical(p) for p in parts(answer)}
        if following is not None and all(canonical(p) in held for p in parts(following)):
            units[j + 1] = answer
            removed.append(following)
        elif following is not None and responses(following):
            continue
        else:
            units.insert(j + 1, answer)
        added.append(answer)
    if not added:
        return None
    return Edit(
        after.with_units(units),
        "brought back from the input the full response turn of call turn(s) answered short",
        data(*added),
        data(*removed),
    )


def _call_key(part: dict[str, Any]) -> str:
    call = part.get("functionCall") or {}
    return str(call.get("id") or call.get("name"))


def _response_key(part: dict[str, Any]) -> str:
    response = part.get("functionResponse") or {}
    return str(response.get("id") or response.get("name"))


def take_out_unanswered_function_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out the call parts the next turn does not answer (matched by id, else by name)."""
    del before, facts
    units = list(after.units)
    removed: list[dict[str, Any]] = []
    for j in reversed(_miscounted(units)):
        following = units[j + 1] if j + 1 < len(units) else None
        owed = [_response_key(p) for p in responses(following)] if following is not None else []
        if len(owed) > len(calls(units[j])):
            continue
        kept = []
        for part in parts(units[j]):
            if "functionCall" in part:
                key = _call_key(part)
                if key in owed:
                    owed.remove(key)
                else:
                    removed.append(part)
                    continue
            kept.append(part)
        rebuilt = _with_parts(units[j], kept)
        if rebuilt is None:
            del units[j]
        else:
            units[j] = rebuilt
    if not removed:
        return None
    return Edit(
        after.with_units(units),
        "took out the function call part(s) the next turn does not answer",
        removed=data(*removed),
    )


def _misplaced_calls(units: list[Unit]) -> list[int]:
    """Call turns that open the history or follow a model turn."""
    return [
        j for j, content in enumerate(units)
        if calls(content) and (j == 0 or units[j - 1].get("role") != "user")
    ]  # fmt: skip


def _said_by_user(content: Unit) -> bool:
    """A user turn that says something and answers no call (what may open a call exchange)."""
    return content.get("role") == "user" and not responses(content) and bool(parts(content))


def take_out_turns_before_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out the model turn standing right before a function call turn (a summary written as
    a model turn); a history that opens on calls loses its turns up to its first user turn."""
    del before, facts
    units = after.units
    stray: set[int] = set()
    for j in _misplaced_calls(units):
        if j > 0 and not calls(units[j - 1]):
            stray.add(j - 1)
        elif j == 0:
            first = next((k for k, c in enumerate(units) if _said_by_user(c)), None)
            if first is None:
                return None
            stray.update(range(first))
    return _without(after, stray, "took out the turn(s) standing before or opening call turns")


def bring_back_turns_before_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the user turn nearest before a misplaced call turn: a call
    turn may follow a user turn."""
    del facts
    position = {key: i for i, key in enumerate(before.keys)}
    present = set(after.keys)
    units = list(after.units)
    added: list[Unit] = []
    for j in reversed(_misplaced_calls(units)):
        at = position.get(after.keys[j])
        if at is None:
            continue
        source = next((k for k in range(at - 1, -1, -1) if _said_by_user(before.units[k])), None)
        if source is None or before.keys[source] in present:
            continue
        units.insert(j, before.units[source])
        added.append(before.units[source])
    if not added:
        return None
    return Edit(
        after.with_units(units),
        "brought back from the input the user turn(s) before call turns",
        added=data(*added),
    )


def _stray_responses(units: list[Unit]) -> list[int]:
    return [
        j for j, content in enumerate(units)
        if responses(content) and (j == 0 or not calls(units[j - 1]))
    ]  # fmt: skip


def take_out_orphan_responses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out function responses not right after a call turn (but the input's last turn)."""
    del facts
    units = after.units
    last = len(units) - 1
    out = list(units)
    removed: list[dict[str, Any]] = []
    for j in reversed(_stray_responses(units)):
        if j == last and before.units and after.keys[j] == before.keys[-1]:
            continue
        removed += responses(units[j])
        rebuilt = _with_parts(units[j], [p for p in parts(units[j]) if "functionResponse" not in p])
        if rebuilt is None:
            del out[j]
        else:
            out[j] = rebuilt
    if not removed:
        return None
    return Edit(
        after.with_units(out),
        "took out function response part(s) whose call turn the answer dropped",
        removed=data(*removed),
    )


def bring_back_function_calls(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the call turn that a stray response turn answers."""
    del facts
    position = {key: i for i, key in enumerate(before.keys)}
    present = set(after.keys)
    units = list(after.units)
    added: list[Unit] = []
    for j in reversed(_stray_responses(units)):
        at = position.get(after.keys[j])
        if at is None or at == 0 or not calls(before.units[at - 1]):
            continue
        if before.keys[at - 1] in present:
            continue
        units.insert(j, before.units[at - 1])
        added.append(before.units[at - 1])
    if not added:
        return None
    return Edit(
        after.with_units(units),
        "brought back from the input the call turn(s) stray responses answer",
        added=data(*added),
    )


def take_out_empty_parts(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out parts that carry no data, and turns left without parts."""
    del before, facts
    out: list[Unit] = []
    removed: list[Any] = []
    for content in after.units:
        own = parts(content)
        kept = [p for p in own if gemini.Part.model_validate(p).has_data]
        removed += [p for p in own if not any(p is k for k in kept)]
        if not kept:
            removed.append(content)
            continue
        out.append(content if len(kept) == len(own) else {**content, "parts": kept})
    if not removed:
        return None
    return Edit(after.with_units(out), "took out empty parts and turns", removed=data(*removed))


def take_out_bad_role_turns(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out turns whose role is not user or model."""
    del before, facts
    stray = [j for j, c in enumerate(after.units) if c.get("role") not in gemini.ROLES]
    return _without(after, stray, "took out turn(s) whose role is not user or model")


__all__ = [
    "bring_back_function_calls",
    "bring_back_function_responses",
    "bring_back_turns_before_calls",
    "take_out_bad_role_turns",
    "take_out_empty_parts",
    "take_out_orphan_responses",
    "take_out_turns_before_calls",
    "take_out_unanswered_function_calls",
]
