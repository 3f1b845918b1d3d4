"""The guard in repair mode: the repaired answer, else the input, else RepairError; the events,
the counters and the log lines say what was done."""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.invariants.laws.messages.provider_rules import provider_problems
from compactcheck.observed.guard import GuardEvent, RepairError
from tests.compactcheck.observed.repair.pairs import (
    GOAL,
    LOSS_JUDGE,
    NEXT,
    SYSTEM,
    Messages,
    call,
    result,
)

HISTORY: Messages = [
    SYSTEM,
    GOAL,
    *(m for n in range(6) for m in (call(f"c{n}"), result(f"c{n}", "x = 1\n" * 10))),
    NEXT,
]


def window(messages: Messages) -> Messages:
    """The system prompt and the last four messages: the first of them a result cut from its
    call."""
    return [messages[0], *messages[-4:]]


def test_repair_returns_a_lawful_answer_and_logs_one_line_per_repair(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guarded = compactcheck.guard(window, on_violation="repair")
    assert provider_problems("openai-chat", {"messages": window(HISTORY)})
    with caplog.at_level(logging.WARNING, logger="compactcheck.guard"):
        answer = guarded(HISTORY)
    assert compactcheck.check(HISTORY, answer).holds
    assert provider_problems("openai-chat", {"messages": answer}) == []
    assert len(answer) < len(HISTORY)
    lines = [record.getMessage() for record in caplog.records]
    assert [line.split(";")[0] for line in lines] == [
        "compaction broke tool_pairing",
        "compaction broke goal_preserved",
    ]
    assert "took out the tool result(s) of c4" in lines[0]
    assert guarded.stats.repaired == 1
    assert guarded.stats.repairs == {"tool_pairing": 1, "goal_preserved": 1}
    assert guarded.stats.counters() == {
        "calls": 1,
        "checked": 1,
        "violated": 1,
        "repaired": 1,
        "unrepaired": 0,
        "grown": 0,
        "repairs.goal_preserved": 1,
        "repairs.tool_pairing": 1,
    }


def test_the_event_lists_each_repair_with_its_sizes() -> None:
    seen: list[GuardEvent] = []
    guarded = compactcheck.guard(window, on_violation="repair", on_event=seen.append)
    answer = guarded(HISTORY)
    [event] = seen
    assert event.returned == "repaired"
    assert event.after == window(HISTORY)
    first, second = event.repairs
    assert (first.law, first.repair) == ("tool_pairing", "take_out_orphan_results")
    assert first.removed == (HISTORY[-4],)
    assert (second.law, second.added) == ("goal_preserved", (GOAL,))
    assert first.size_before > first.size_after < second.size_after
    assert answer == [SYSTEM, GOAL, *HISTORY[-3:]]


def test_an_answer_no_repair_makes_lawful_hands_the_input_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def reordered(messages: Messages) -> Messages:
        # Two kept exchanges swapped: which one moved is not a mechanical choice.
        return [*messages[:2], *messages[4:6], *messages[2:4], messages[-1]]

    seen: list[GuardEvent] = []
    guarded = compactcheck.guard(reordered, on_violation="repair", on_event=seen.append)
    with caplog.at_level(logging.WARNING, logger="compactcheck.guard"):
        assert guarded(HISTORY) is HISTORY
    assert seen[0].returned == "input"
    assert "not repaired" in caplog.records[-1].getMessage()
    assert guarded.stats.unrepaired == 1
    assert guarded.stats.repaired == 0


def test_when_nothing_lawful_fits_the_budget_the_guard_says_so() -> None:
    def unchanged(messages: Messages) -> Messages:
        return list(messages)

    seen: list[GuardEvent] = []
    budget = {"budget": {"limit": 100, "counter": "characters"}}
    guarded = compactcheck.guard(
        unchanged, on_violation="repair", facts=budget, on_event=seen.append
    )
    with pytest.raises(RepairError, match="no lawful answer fits"):
        guarded(HISTORY)
    assert seen[0].returned == "nothing"
    assert issubclass(RepairError, compactcheck.ViolationError)


def test_a_lawful_answer_larger_than_its_input_is_replaced_by_the_input() -> None:
    def padded(messages: Messages) -> Messages:
        note = {"role": "user", "content": "Note: " + "nothing new. " * 20}
        return [*messages, note, messages[-1]]

    guarded = compactcheck.guard(padded, on_violation="repair")
    small = [SYSTEM, GOAL, NEXT]
    assert guarded(small) is small
    assert guarded.stats.grown == 1
    # Other modes leave a lawful answer alone.
    assert compactcheck.guard(padded, on_violation="log")(small) == padded(small)


def test_the_async_guard_repairs_the_same_way() -> None:
    async def compact(messages: Messages) -> Messages:
        await asyncio.sleep(0)
        return window(messages)

    guarded = compactcheck.guard(compact, on_violation="repair")
    assert inspect.iscoroutinefunction(guarded)
    answer = asyncio.run(guarded(HISTORY))
    assert answer == compactcheck.guard(window, on_violation="repair")(HISTORY)
    assert guarded.stats.repaired == 1


def test_repair_in_a_provider_format() -> None:
    system = "Rules:\n- Never push to main"

    def use(n: int) -> dict[str, Any]:
        block = {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"n": n}}
        return {"role": "assistant", "content": [block]}

    def answered(n: int) -> dict[str, Any]:
        block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok " * 20}
        return {"role": "user", "content": [block]}

    messages = [GOAL, *(m for n in range(4) for m in (use(n), answered(n))), NEXT]
    request = {"system": system, "messages": messages}

    def last_four(data: dict[str, Any]) -> dict[str, Any]:
        # Opens on a tool_result whose tool_use it cut: Anthropic rejects that request.
        return {**data, "messages": data["messages"][-4:]}

    assert provider_problems("anthropic", last_four(request))
    guarded = compactcheck.guard(last_four, on_violation="repair")
    answer = guarded(request)
    assert provider_problems("anthropic", answer) == []
    assert compactcheck.check(request, answer).holds
    assert set(guarded.stats.repairs) == {"anthropic_tool_result_has_prior_use", "goal_preserved"}


def test_bad_on_event_is_an_error() -> None:
    async def hook(event: GuardEvent) -> None:
        del event

    with pytest.raises(compactcheck.CompactcheckError, match="on_event"):
        compactcheck.guard(window, on_event=hook)
    with pytest.raises(compactcheck.CompactcheckError, match="'repair'"):
        compactcheck.guard(window, on_violation="mend")  # type: ignore[call-overload]


def softened(messages: Messages) -> Messages:
    """The system prompt with its rule hedged, the goal and the last message: a weakening the
    reading leaves for review (a hedge is never mechanical evidence)."""
    hedged = {"role": "system", "content": messages[0]["content"] + ", where possible"}
    return [hedged, messages[1], messages[-1]]


def test_a_guard_with_a_judge_repairs_what_the_judge_rules_a_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the judge's answers are cached under .compactcheck/models
    alone = compactcheck.guard(softened, on_violation="repair")
    assert alone(HISTORY) == softened(HISTORY)  # left for review: nothing to act on
    program = tmp_path / "judge.py"
    program.write_text(LOSS_JUDGE, encoding="utf-8")
    judged = compactcheck.guard(
        softened, on_violation="repair", judge=f"cmd:{sys.executable} {program}"
    )
    answer = judged(HISTORY)
    assert answer[0] == SYSTEM
    assert judged.stats.repairs == {"constraints_not_weakened": 1}
    assert compactcheck.check(HISTORY, answer).holds


def test_a_guard_refuses_an_unknown_judge_in_one_line() -> None:
    with pytest.raises(compactcheck.CompactcheckError, match="unknown judge"):
        compactcheck.guard(softened, judge="oracle:best")
