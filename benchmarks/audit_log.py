"""A recorded-compactions log with a known set of planted violations, and its audit speed.

Run: benchmarks/run --only audit

Each line is a coding agent's history (a system prompt with three rules, the user's goal,
``turns`` tool loops that read and edit files, the user's next message) and a compaction of it
that keeps every messages law: the head, one summary naming every changed file, the last tool
loop and the newest message. Every ``every``-th line plants one violation instead, cycling
through three kinds, each breaking exactly one law:

- ``tool_pairing``: the kept loop's call message is dropped, its result kept (an orphan);
- ``goal_preserved``: the goal message is folded into the summary without its text;
- ``facts_preserved``: the summary leaves out one changed file.

Built with ``random.Random(seed)``, so the same arguments write the same log.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

PLANTED = ("tool_pairing", "goal_preserved", "facts_preserved")
RULES = ("Never push to main", "Use Python 3.11", "Keep the public API unchanged")
MODULES = ("src/auth/session.py", "src/auth/tokens.py", "src/api/routes.py", "src/db/models.py")


def _call(call_id: str, name: str, path: str) -> dict[str, Any]:
    arguments = json.dumps({"path": path})
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


def history(rng: random.Random, turns: int, number: int) -> tuple[list[dict[str, Any]], list[str]]:
    """One history and the files it changed, in order."""
    system = "You are a careful coding agent.\nRules:\n" + "".join(f"- {r}\n" for r in RULES)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Fix bug #{number}: the login drops after a token refresh"},
    ]
    changed: list[str] = []
    for turn in range(turns):
        path = rng.choice(MODULES)
        writes = rng.random() < 0.5
        name = "edit_file" if writes else "read_file"
        call_id = f"call_{number}_{turn}"
        messages.append(_call(call_id, name, path))
        body = "ok" if writes else "\n".join(f"line {i}: x = {rng.randrange(99)}" for i in range(8))
        messages.append({"role": "tool", "tool_call_id": call_id, "content": body})
        if writes and path not in changed:
            changed.append(path)
    messages.append({"role": "user", "content": "Now run the tests."})
    return messages, changed


def compaction(
    before: list[dict[str, Any]], changed: list[str], plant: str | None
) -> list[dict[str, Any]]:
    """The compaction of ``before``: one that keeps every law, or one with ``plant`` broken."""
    system, goal = before[0], before[1]
    call, result, newest = before[-3], before[-2], before[-1]
    files = (
        [f for f in changed if f != _omitted(before, changed)]
        if plant == "facts_preserved"
        else changed
    )
    mentions = ", ".join(files) if files else "no file"
    if plant == "goal_preserved":
        # In the user's voice, where the goal stood: the history still opens with a user turn
        # (user_turn_first), and only the goal's text is lost.
        summary = {
            "role": "user",
            "content": f"Summary: worked on a login bug; changed {mentions}.",
        }
        return [system, summary, call, result, newest]
    summary = {"role": "assistant", "content": f"Summary of earlier steps: changed {mentions}."}
    kept = [result] if plant == "tool_pairing" else [call, result]
    return [system, goal, summary, *kept, newest]


def _omitted(before: list[dict[str, Any]], changed: list[str]) -> str | None:
    """A changed file that only the summary can carry (the kept call does not name it)."""
    kept = before[-3]["tool_calls"][0]["function"]["arguments"]
    return next((path for path in changed if path not in kept), None)


def write_log(path: Path, pairs: int, every: int = 97, seed: int = 0) -> dict[int, str]:
    """Write ``pairs`` lines to ``path``; the planted law of each planted line, by line number."""
    rng = random.Random(seed)
    planted: dict[int, str] = {}
    with path.open("w", encoding="utf-8") as handle:
        for number in range(1, pairs + 1):
            turns = rng.randint(2, 12)
            before, changed = history(rng, turns, number)
            plant: str | None = None
            if number % every == 0:
                plant = PLANTED[(number // every) % len(PLANTED)]
                # A facts plant needs a changed file that the kept loop does not name.
                if plant == "facts_preserved" and _omitted(before, changed) is None:
                    plant = "goal_preserved"
                planted[number] = plant
            after = compaction(before, changed, plant)
            handle.write(json.dumps({"before": before, "after": after, "id": f"r{number}"}) + "\n")
    return planted


def pairs_per_second(path: Path, pairs: int) -> dict[str, float]:
    """Audit a fresh log of ``pairs`` lines; pairs per second, and the violations found."""
    from compactcheck.observed.audit import audit

    planted = write_log(path, pairs)
    found: list[int] = []
    started = time.perf_counter()
    audit(path, on_violation=lambda finding: found.append(finding.line), toolkit_version="bench")
    seconds = time.perf_counter() - started
    return {
        "pairs": pairs,
        "seconds": seconds,
        "pairs_per_second": pairs / seconds,
        "planted": len(planted),
        "found": len(found),
    }


def audit_speed(pairs: int) -> None:
    """Print how fast a log of recorded compactions is audited."""
    print(f"\n## Audit of recorded compactions ({pairs} pairs, JSON Lines)")
    with tempfile.TemporaryDirectory() as folder:
        figures = pairs_per_second(Path(folder) / "log.jsonl", pairs)
    print(
        f"{figures['pairs']:.0f} pairs in {figures['seconds']:.2f} s: "
        f"{figures['pairs_per_second']:.0f} pairs per second; {figures['found']:.0f} violations "
        f"found of {figures['planted']:.0f} planted"
    )
