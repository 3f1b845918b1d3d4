"""Repairs of Anthropic's server tools: a server tool's result stays in the message of its
``server_tool_use``, right after it (web search, code execution and their kin).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactcheck.invariants import Facts
from compactcheck.observed.repair.anthropic_pairing import blocks, kind, rebuilt
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, data


def _server_strays(unit: Unit) -> tuple[list[int], list[int]]:
    """Within a message: server results with no use before them, and uses with no result."""
    own = blocks(unit)
    used: set[str] = set()
    answered: set[str] = set()
    results = []
    for k, b in enumerate(own):
        if kind(b) == "server_tool_use":
            used.add(str(b.get("id")))
        elif kind(b).endswith("_tool_result") and kind(b) != "tool_result":
            if str(b.get("tool_use_id")) not in used:
                results.append(k)
            answered.add(str(b.get("tool_use_id")))
    uses = [
        k
        for k, b in enumerate(own)
        if kind(b) == "server_tool_use" and str(b.get("id")) not in answered
    ]
    return results, uses  # fmt: skip


def take_out_stray_server_blocks(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out server tool results with no server_tool_use before them in their message, and
    server_tool_use blocks that lost their result."""
    del before, facts
    units = after.units
    edited: dict[int, list[dict[str, Any]]] = {}
    removed: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        results, uses = _server_strays(unit)
        if results or uses:
            gone = set(results) | set(uses)
            removed += [b for k, b in enumerate(blocks(unit)) if k in gone]
            edited[index] = [b for k, b in enumerate(blocks(unit)) if k not in gone]
    if not edited:
        return None
    out, _ = rebuilt(units, edited)
    return Edit(after.with_units(out), "took out server tool blocks that lost their other half",
                removed=data(*removed))  # fmt: skip


def _input_blocks(before: Side, kinds: Iterable[str]) -> dict[str, dict[str, Any]]:
    wanted = set(kinds)
    return {
        str(b.get("id") if kind(b) == "server_tool_use" else b.get("tool_use_id")): b
        for unit in before.units
        for b in blocks(unit)
        if kind(b) in wanted or ("server_result" in wanted and kind(b).endswith("_tool_result")
                                 and kind(b) != "tool_result")
    }  # fmt: skip


def bring_back_server_blocks(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the server_tool_use before a stray server result, and the
    result after a server_tool_use that lost it."""
    del facts
    uses = _input_blocks(before, ["server_tool_use"])
    results = _input_blocks(before, ["server_result"])
    units = after.units
    out = list(units)
    added: list[dict[str, Any]] = []
    for index, unit in enumerate(units):
        stray_results, stray_uses = _server_strays(unit)
        own = blocks(unit)
        if not (stray_results or stray_uses):
            continue
        rebuilt: list[dict[str, Any]] = []
        for k, b in enumerate(own):
            if k in stray_results and str(b.get("tool_use_id")) in uses:
                rebuilt.append(uses[str(b.get("tool_use_id"))])
                added.append(rebuilt[-1])
            rebuilt.append(b)
            if k in stray_uses and str(b.get("id")) in results:
                rebuilt.append(results[str(b.get("id"))])
                added.append(rebuilt[-1])
        out[index] = {**unit, "content": rebuilt}
    if not added:
        return None
    return Edit(after.with_units(out), "brought back server tool blocks from the input",
                added=data(*added))  # fmt: skip


__all__ = ["bring_back_server_blocks", "take_out_stray_server_blocks"]
