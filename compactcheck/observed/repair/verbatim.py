"""Repairs of what a kept message must keep: a kept call or result put back as the input had it
(its arguments, its text), in place of an edited or pruned copy.

A kept message is tied to its original by its tool call id; the repair puts back the input's
part with that id (a chat message, an Anthropic block, a Responses item, a Gemini part), so
the answer grows by what the compactor cut.
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import AssistantMessage, Facts, ToolMessage
from compactcheck.invariants.formats import gemini
from compactcheck.invariants.formats.reading import gemini_call_ids
from compactcheck.invariants.laws.messages.alignment import alignment
from compactcheck.invariants.laws.messages.order import pruning
from compactcheck.invariants.laws.messages.reading import call_ids
from compactcheck.observed.repair.anthropic_pairing import blocks, kind
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, data

_ID_OF = {
    "tool_use": "id",
    "tool_result": "tool_use_id",
    "function_call": "call_id",
    "custom_tool_call": "call_id",
    "function_call_output": "call_id",
    "custom_tool_call_output": "call_id",
}


def _ids(side: Side, message: int) -> set[str]:
    read = side.reading[message]
    if isinstance(read, ToolMessage):
        return {read.tool_call_id}
    return set(call_ids(read)) if isinstance(read, AssistantMessage) else set()


def _by_id(item: dict[str, Any]) -> str | None:
    field = _ID_OF.get(kind(item))
    return str(item.get(field)) if field is not None else None


def _explicit(part: dict[str, Any]) -> str | None:
    """The id a Gemini call or response part carries itself."""
    inner = part.get("functionCall") or part.get("functionResponse") or {}
    found = inner.get("id") if isinstance(inner, dict) else None
    return str(found) if found else None


def _gemini_parts(side: Side) -> dict[tuple[int, int], str]:
    parsed = side.parsed
    assert isinstance(parsed, gemini.GeminiRequest)
    return gemini_call_ids(parsed)


def _put_back(before: Side, after: Side, pairs: list[tuple[int, int]]) -> Edit | None:
    """The answer with the parts behind each (answer message, input message) pair of its
    reading put back as the input had them (chat units are the reading's messages)."""
    if not pairs:
        return None
    fmt = after.format
    units = list(after.units)
    added: list[Any] = []
    removed: list[Any] = []
    if fmt == "openai-chat":
        for out, source in pairs:
            removed.append(units[out])
            units[out] = before.units[source]
            added.append(units[out])
        return Edit(after.with_units(units), "put back kept message(s) as the input had them",
                    data(*added), data(*removed))  # fmt: skip
    wanted = set().union(*(_ids(after, out) for out, _ in pairs))
    if fmt == "gemini":
        # Only parts with an id of their own: a call without one is named by what it calls and
        # how often that call comes again, which a repair elsewhere in the history can shift.
        originals = {
            key: before.units[c]["parts"][p]
            for (c, p), key in _gemini_parts(before).items()
            if _explicit(before.units[c]["parts"][p]) == key
        }
        for (c, p), key in _gemini_parts(after).items():
            if _explicit(units[c]["parts"][p]) != key:
                continue
            if key in wanted and key in originals and units[c]["parts"][p] != originals[key]:
                own = list(units[c]["parts"])
                removed.append(own[p])
                own[p] = originals[key]
                added.append(own[p])
                units[c] = {**units[c], "parts": own}
    elif fmt == "openai-responses":
        originals = {str(_by_id(i)): i for i in before.units if _by_id(i) in wanted}
        for j, item in enumerate(units):
            key = str(_by_id(item))
            if _by_id(item) is not None and key in originals and item != originals[key]:
                removed.append(item)
                units[j] = originals[key]
                added.append(units[j])
    else:
        source_blocks = {
            (kind(b), _by_id(b)): b for u in before.units for b in blocks(u) if _by_id(b) in wanted
        }
        for j, unit in enumerate(units):
            own = blocks(unit)
            rebuilt = [source_blocks.get((kind(b), _by_id(b)), b) for b in own]
            if rebuilt != own:
                removed += [b for b, r in zip(own, rebuilt, strict=True) if b is not r]
                added += [r for b, r in zip(own, rebuilt, strict=True) if b is not r]
                units[j] = {**unit, "content": rebuilt}
    if not added:
        return None
    return Edit(after.with_units(units), "put back kept call(s) or result(s) as the input had them",
                data(*added), data(*removed))  # fmt: skip


def restore_kept_messages(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back, as the input had it, each kept call or result the answer edited."""
    del facts
    aligned = alignment(before.reading, after.reading)
    return _put_back(before, after, list(aligned.changed))


def restore_pruned_results(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put back, whole, each kept tool result the answer cut or replaced by a placeholder."""
    del facts
    pruned = pruning(before.reading, after.reading)
    return _put_back(before, after, list(pruned.results))


__all__ = ["restore_kept_messages", "restore_pruned_results"]
