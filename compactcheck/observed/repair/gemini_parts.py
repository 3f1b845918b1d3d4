"""Repairs of what a Gemini part must carry: a response's id and name those of the call it
answers, and each thought signature on the very part it came with.

A thought signature is opaque: a repair puts the input's back on the part it came with, or takes
one off a part it was moved to, and never writes one.
"""

from __future__ import annotations

import json
from typing import Any

from compactcheck.invariants import Facts
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.gemini import calls, parts, responses
from compactcheck.observed.repair.side import Side, data

_SIGNATURE = "thoughtSignature"


def restore_function_responses(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back the input's response to a call in place of one with another id or name."""
    del facts
    given = {
        str((p["functionResponse"] or {}).get("id")): p
        for content in before.units
        for p in responses(content)
        if (p["functionResponse"] or {}).get("id")
    }
    units = list(after.units)
    added: list[Any] = []
    removed: list[Any] = []
    for j in range(len(units) - 1):
        made = calls(units[j])
        if not made:
            continue
        answers = responses(units[j + 1])
        swap: dict[int, dict[str, Any]] = {}
        for call_part, response_part in zip(made, answers, strict=False):
            call = call_part["functionCall"] or {}
            response = response_part["functionResponse"] or {}
            if call.get("id") is None:
                continue
            if response.get("id") != call.get("id") or response.get("name") != call.get("name"):
                original = given.get(str(call.get("id")))
                if original is not None:
                    swap[id(response_part)] = original
        if swap:
            removed += [p for p in parts(units[j + 1]) if id(p) in swap]
            added += list(swap.values())
            units[j + 1] = {
                **units[j + 1],
                "parts": [swap.get(id(p), p) for p in parts(units[j + 1])],
            }
    if not added:
        return None
    return Edit(
        after.with_units(units),
        "put back the input's function response(s) in place of renumbered ones",
        data(*added),
        data(*removed),
    )


def _plain(part: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in part.items() if k != _SIGNATURE}, sort_keys=True)


def restore_thought_signatures(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back the thought signature a kept call part carried in the input."""
    del facts
    signed = {
        _plain(p): p[_SIGNATURE]
        for content in before.units
        for p in calls(content)
        if p.get(_SIGNATURE)
    }
    units = list(after.units)
    added: list[Any] = []
    for j, content in enumerate(units):
        own = parts(content)
        rebuilt = [
            {**p, _SIGNATURE: signed[_plain(p)]}
            if "functionCall" in p and signed.get(_plain(p), p.get(_SIGNATURE)) != p.get(_SIGNATURE)
            else p
            for p in own
        ]  # fmt: skip
        if rebuilt != own:
            added += [signed[_plain(p)] for p, q in zip(own, rebuilt, strict=True) if p is not q]
            units[j] = {**content, "parts": rebuilt}
    if not added:
        return None
    return Edit(
        after.with_units(units),
        "put back the thought signature(s) kept calls carried",
        added=data(*added),
    )


def take_out_moved_signatures(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take thought signatures off parts the input did not carry them on."""
    del facts
    given = {
        (_plain(p), p[_SIGNATURE])
        for content in before.units
        for p in parts(content)
        if p.get(_SIGNATURE)
    }
    units = list(after.units)
    removed: list[Any] = []
    for j, content in enumerate(units):
        own = parts(content)
        rebuilt = [
            {k: v for k, v in p.items() if k != _SIGNATURE}
            if p.get(_SIGNATURE) and (_plain(p), p[_SIGNATURE]) not in given
            else p
            for p in own
        ]
        if rebuilt != own:
            removed += [p[_SIGNATURE] for p, q in zip(own, rebuilt, strict=True) if p is not q]
            units[j] = {**content, "parts": rebuilt}
    if not removed:
        return None
    return Edit(
        after.with_units(units),
        "took thought signature(s) off parts they were moved to",
        removed=data(*removed),
    )


__all__ = [
    "restore_function_responses",
    "restore_thought_signatures",
    "take_out_moved_signatures",
]
