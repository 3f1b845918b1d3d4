"""Small histories of every format, and how a test applies one repair and judges its edit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts
from compactcheck.invariants.formats import Format
from compactcheck.invariants.inference import infer_facts
from compactcheck.models import MeteredModel
from compactcheck.models.judge import judge_slot
from compactcheck.observed.judging import check_pair
from compactcheck.observed.repair.change import Edit, Repair
from compactcheck.observed.repair.side import Side, side_of

Messages = list[dict[str, Any]]

# A judge of the user's own that rules every item it is asked about a loss: a weakening is never
# mechanical evidence, so only a judge turns one into the violation a repair mends.
LOSS_JUDGE = """
import json, sys
for line in sys.stdin:
    asked = json.loads(line)
    print(json.dumps({"id": asked["id"], "verdict": "loss", "reason": "softened"}), flush=True)
"""


def loss_judge(folder: Path) -> MeteredModel:
    """A judge program in ``folder`` that rules every item a loss, its cache beside it."""
    program = folder / "judge.py"
    program.write_text(LOSS_JUDGE, encoding="utf-8")
    slot = judge_slot(f"cmd:{sys.executable} {program}", cache_dir=folder / "judged")
    return slot.open()


SYSTEM = {"role": "system", "content": "You are a coding agent.\nRules:\n- Never push to main"}
GOAL = {"role": "user", "content": "Goal: fix the login bug (AUTH-142)"}
NEXT = {"role": "user", "content": "Go on."}


def call(call_id: str, name: str = "read_file", **arguments: Any) -> dict[str, Any]:
    """An assistant message making one call."""
    return calls(call_id, name=name, **arguments)


def calls(*ids: str, name: str = "read_file", **arguments: Any) -> dict[str, Any]:
    """An assistant message making one call per id."""
    made = [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments or {"path": "a.py"})},
        }
        for call_id in ids
    ]
    return {"role": "assistant", "tool_calls": made}


def result(call_id: str, text: str = "x = 1") -> dict[str, Any]:
    """The tool message answering a call."""
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def facts_of(
    before: Any, format: Format = "openai-chat", declared: dict[str, Any] | None = None
) -> Facts:
    """The facts of a history: what it shows, and what is declared."""
    return infer_facts(side_of(before, format).reading, declared)


def applied(
    repair: Repair,
    before: Any,
    after: Any,
    format: Format = "openai-chat",
    declared: dict[str, Any] | None = None,
) -> Edit | None:
    """One repair's edit of ``after``, or None."""
    facts = facts_of(before, format, declared)
    return repair(side_of(before, format), side_of(after, format), facts)


def broken(
    before: Any,
    after: Any,
    format: Format = "openai-chat",
    declared: dict[str, Any] | None = None,
    judge: MeteredModel | None = None,
) -> list[str]:
    """The laws an answer breaks, each once (as the guard judges it, with ``judge`` if any)."""
    facts = facts_of(before, format, declared) if declared else None
    judgement = check_pair(
        before, after, facts, format=format, selection=Selection(None, ()), judge=judge
    )
    return list(dict.fromkeys(v.invariant for v in judgement.violations))


def mended(
    repair: Repair,
    law: str,
    before: Any,
    after: Any,
    format: Format = "openai-chat",
    judge: MeteredModel | None = None,
) -> Side:
    """The edit of a repair that mends ``law``, checked: it broke before the edit, not after."""
    found = broken(before, after, format, judge=judge)
    assert law in found, found
    edit = applied(repair, before, after, format)
    assert edit is not None, f"{repair.__name__} proposed nothing"
    data = edit.side.units if format == "openai-chat" else edit.side.request
    found = broken(before, data, format, judge=judge)
    assert law not in found, found
    return edit.side
