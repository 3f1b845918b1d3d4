"""Repairs of OpenAI Responses input rules: calls and outputs paired by call_id, reasoning items
followed by what they produced, item ids unique and issued, message roles, opaque items carried.

Reasoning and compaction items are opaque: a repair brings the input's back byte for byte or
takes one out, and never writes one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactcheck.invariants import Facts
from compactcheck.invariants.formats import responses as openai
from compactcheck.invariants.laws.messages.responses import provider_compaction
from compactcheck.observed.repair.change import Edit
from compactcheck.observed.repair.side import Side, Unit, canonical, data

_CALLS = ("function_call", "custom_tool_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_OPAQUE = ("reasoning", "compaction")


def kind(item: Unit) -> str:
    """An item's type (a message may leave it out)."""
    return str(item.get("type") or ("message" if "role" in item else ""))


def _model_made(item: Unit | None) -> bool:
    if item is None:
        return False
    if kind(item) == "message":
        return item.get("role") == "assistant"
    return kind(item) in _CALLS or kind(item) not in (*_OUTPUTS, *_OPAQUE, "message")


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


def _orphan_outputs(after: Side) -> list[int]:
    made: set[str] = set()
    found = []
    for index, item in enumerate(after.units):
        if kind(item) in _CALLS:
            made.add(str(item.get("call_id")))
        elif kind(item) in _OUTPUTS and str(item.get("call_id")) not in made:
            found.append(index)
    return found


def take_out_orphan_outputs(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out each call output with no call of its call_id before it (but the input's last)."""
    del facts
    last = len(after.units) - 1
    stray = [
        j for j in _orphan_outputs(after)
        if not (j == last and before.units and after.keys[j] == before.keys[-1])
    ]  # fmt: skip
    return _without(after, stray, "took out the call output(s) whose call the answer dropped")


def _input_by_call(before: Side, kinds: tuple[str, ...]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, item in enumerate(before.units):
        if kind(item) in kinds:
            found.setdefault(str(item.get("call_id")), index)
    return found


def bring_back_call_items(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the call item of each orphaned output, right before it."""
    del facts
    calls = _input_by_call(before, _CALLS)
    present = set(after.keys)
    stray = {
        j: calls[str(after.units[j].get("call_id"))]
        for j in _orphan_outputs(after)
        if str(after.units[j].get("call_id")) in calls
    }
    stray = {j: i for j, i in stray.items() if before.keys[i] not in present}
    if not stray:
        return None
    out: list[Unit] = []
    for index, item in enumerate(after.units):
        if index in stray:
            out.append(before.units[stray[index]])
        out.append(item)
    return Edit(
        after.with_units(out),
        "brought back from the input the call item(s) of orphaned outputs",
        added=data(*(before.units[i] for i in stray.values())),
    )


def _unanswered(after: Side) -> list[int]:
    answered = {str(i.get("call_id")) for i in after.units if kind(i) in _OUTPUTS}
    return [
        j for j, item in enumerate(after.units)
        if kind(item) in _CALLS and str(item.get("call_id")) not in answered
    ]  # fmt: skip


def take_out_unanswered_call_items(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out each call item the answer holds no output for."""
    del before, facts
    return _without(after, _unanswered(after), "took out the call item(s) that lost their output")


def bring_back_output_items(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the output of each call that lost it, after its run of calls
    and outputs."""
    del facts
    outputs = _input_by_call(before, _OUTPUTS)
    wanted = {
        j: outputs[str(after.units[j].get("call_id"))]
        for j in _unanswered(after)
        if str(after.units[j].get("call_id")) in outputs
    }
    if not wanted:
        return None
    out: list[Unit] = []
    waiting: list[Unit] = []
    for index, item in enumerate(after.units):
        if waiting and kind(item) not in (*_CALLS, *_OUTPUTS):
            out += waiting
            waiting = []
        out.append(item)
        if index in wanted:
            waiting.append(before.units[wanted[index]])
    out += waiting
    return Edit(
        after.with_units(out),
        "brought back from the input the output(s) of calls that lost them",
        added=data(*(before.units[i] for i in wanted.values())),
    )


def take_out_outputs_without_call_id(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out call outputs rewritten without their call_id."""
    del before, facts
    stray = [j for j, i in enumerate(after.units) if kind(i) in _OUTPUTS and not i.get("call_id")]
    return _without(after, stray, "took out the call output(s) that lost their call_id")


def _stranded(after: Side) -> list[int]:
    units = after.units
    following: list[Unit | None] = [*units[1:], None]
    return [
        j for j, item in enumerate(units)
        if kind(item) == "reasoning" and not _model_made(following[j])
    ]  # fmt: skip


def take_out_stranded_reasoning(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out reasoning items not followed by the call or message they belong to."""
    del before, facts
    return _without(after, _stranded(after), "took out reasoning item(s) left without their item")


def bring_back_reasoning_followers(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the item that followed each stranded reasoning item."""
    del facts
    position = {canonical(item): i for i, item in enumerate(before.units)}
    present = set(after.keys)
    wanted: dict[int, int] = {}
    for j in _stranded(after):
        at = position.get(str(after.keys[j]))
        if at is None or at + 1 >= len(before.units) or before.keys[at + 1] in present:
            continue
        if _model_made(before.units[at + 1]):
            wanted[j] = at + 1
    if not wanted:
        return None
    out: list[Unit] = []
    for index, item in enumerate(after.units):
        out.append(item)
        if index in wanted:
            out.append(before.units[wanted[index]])
    return Edit(
        after.with_units(out),
        "brought back from the input the item(s) that followed reasoning items",
        added=data(*(before.units[i] for i in wanted.values())),
    )


def take_out_repeated_items(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out a later item whose id an earlier item has."""
    del before, facts
    seen: set[str] = set()
    stray = []
    for j, item in enumerate(after.units):
        item_id = item.get("id")
        if item_id:
            if item_id in seen:
                stray.append(j)
            seen.add(str(item_id))
    return _without(after, stray, "took out item(s) that repeat an earlier item's id")


def take_out_bad_roles(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take out message items whose role the API rejects."""
    del before, facts
    stray = [
        j for j, item in enumerate(after.units)
        if kind(item) == "message" and item.get("role") not in openai.MESSAGE_ROLES
    ]  # fmt: skip
    return _without(after, stray, "took out message item(s) with a role the API rejects")


def _owners(before: Side) -> dict[str, int]:
    """For each model item id of the input, the position of the reasoning item it followed."""
    owner: dict[str, int] = {}
    current: int | None = None
    for index, item in enumerate(before.units):
        if kind(item) == "reasoning":
            current = index
        elif _model_made(item):
            if item.get("id") and current is not None:
                owner[str(item["id"])] = current
        else:
            current = None
    return owner


def _lost_reasoning(before: Side, after: Side) -> dict[int, int]:
    owners = _owners(before)
    kept = {str(item.get("id")) for item in after.units if item.get("id")}
    return {
        j: owners[str(item["id"])]
        for j, item in enumerate(after.units)
        if item.get("id") and str(item["id"]) in owners
        and str(before.units[owners[str(item["id"])]].get("id")) not in kept
    }  # fmt: skip


def bring_back_owning_reasoning(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Bring back, from the input, the reasoning item a kept item with its id followed."""
    del facts
    lost = _lost_reasoning(before, after)
    if not lost:
        return None
    out: list[Unit] = []
    added: list[Unit] = []
    for index, item in enumerate(after.units):
        source = lost.get(index)
        if source is not None and before.units[source] not in added:
            out.append(before.units[source])
            added.append(before.units[source])
        out.append(item)
    return Edit(
        after.with_units(out),
        "brought back from the input the reasoning item(s) that kept items followed",
        added=data(*added),
    )


def _without_ids(after: Side, places: Iterable[int], what: str) -> Edit | None:
    drop = set(places)
    if not drop:
        return None
    units = after.units
    out = [
        {k: v for k, v in u.items() if k != "id"} if j in drop else u for j, u in enumerate(units)
    ]
    return Edit(after.with_units(out), what, removed=data(*(units[j]["id"] for j in sorted(drop))))


def take_out_orphaned_ids(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take the id off kept items whose reasoning item the answer dropped (sent without an id,
    an item needs no reasoning)."""
    del facts
    return _without_ids(
        after, _lost_reasoning(before, after), "took the id off item(s) that lost their reasoning"
    )


def take_out_unissued_ids(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Take off item ids the input never gave an item of that type."""
    del facts
    issued = {(kind(item), str(item.get("id"))) for item in before.units if item.get("id")}
    parsed_before, parsed_after = before.parsed, after.parsed
    assert isinstance(parsed_before, openai.ResponsesInput)
    assert isinstance(parsed_after, openai.ResponsesInput)
    provider = provider_compaction(parsed_before, parsed_after)
    stray = [
        j for j, item in enumerate(after.units)
        if item.get("id") and (kind(item), str(item.get("id"))) not in issued and j not in provider
    ]  # fmt: skip
    return _without_ids(after, stray, "took off item id(s) the input never issued")


def restore_opaque_items(before: Side, after: Side, facts: Facts) -> Edit | None:
    """Put the input's reasoning or compaction item back in place of an edited one with its id;
    take out one that matches no input item."""
    del facts
    given = {canonical(item) for item in before.units if kind(item) in _OPAQUE}
    by_id = {
        str(item.get("id")): item
        for item in before.units
        if kind(item) in _OPAQUE and item.get("id")
    }
    parsed_before, parsed_after = before.parsed, after.parsed
    assert isinstance(parsed_before, openai.ResponsesInput)
    assert isinstance(parsed_after, openai.ResponsesInput)
    provider = provider_compaction(parsed_before, parsed_after)
    out: list[Unit] = []
    added: list[Any] = []
    removed: list[Any] = []
    for j, item in enumerate(after.units):
        if kind(item) in _OPAQUE and canonical(item) not in given and j not in provider:
            removed.append(item)
            original = by_id.get(str(item.get("id")))
            if original is not None:
                out.append(original)
                added.append(original)
            continue
        out.append(item)
    if not removed:
        return None
    what = "put back the input's opaque item(s) in place of edited ones"
    return Edit(after.with_units(out), what, data(*added), data(*removed))


__all__ = [
    "bring_back_call_items",
    "bring_back_output_items",
    "bring_back_owning_reasoning",
    "bring_back_reasoning_followers",
    "restore_opaque_items",
    "take_out_bad_roles",
    "take_out_orphan_outputs",
    "take_out_orphaned_ids",
    "take_out_outputs_without_call_id",
    "take_out_repeated_items",
    "take_out_stranded_reasoning",
    "take_out_unanswered_call_items",
    "take_out_unissued_ids",
]
