"""The mender: the answer returned only when every law holds on it, it is no larger than the
input and it fits a declared budget; otherwise no answer, and why."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from compactcheck.base.selection import Selection
from compactcheck.observed.judging import PairError, check_pair
from compactcheck.observed.repair import COVERED, REPAIRS, repair
from tests.compactcheck.observed.repair.pairs import GOAL, NEXT, SYSTEM, Messages, call, result

HERE = Path(__file__).parent

HISTORY: Messages = [
    SYSTEM,
    GOAL,
    *(m for n in range(6) for m in (call(f"c{n}"), result(f"c{n}", "x = 1\n" * 10))),
    NEXT,
]


def window(messages: Messages) -> Messages:
    """A sliding window that cuts between a call and its result."""
    return [messages[0], *messages[-4:]]


def test_every_repair_has_a_test_of_its_own() -> None:
    tests = "".join(path.read_text(encoding="utf-8") for path in HERE.glob("test_*_repairs.py"))
    named = set(re.findall(r"\.(\w+)\b", tests))
    untested = sorted({f.__name__ for fs in REPAIRS.values() for f in fs} - named)
    assert not untested, f"repairs without a test of their own: {untested}"


def test_a_lawful_answer_comes_back_as_it_was() -> None:
    lawful = [SYSTEM, GOAL, *HISTORY[-3:]]
    mended = repair(HISTORY, lawful)
    assert mended.lawful
    assert mended.answer is lawful
    assert mended.changes == ()


def test_a_repaired_answer_holds_every_law_and_is_no_larger_than_the_input() -> None:
    answer = window(HISTORY)
    assert not check_pair(HISTORY, answer).holds
    mended = repair(HISTORY, answer)
    assert mended.lawful, mended.reason
    assert check_pair(HISTORY, mended.answer).holds
    assert mended.size_repaired <= mended.size_input
    assert [c.law for c in mended.changes] == ["tool_pairing", "goal_preserved"]
    # The orphaned result is taken out rather than its call brought back: that is smaller.
    assert mended.changes[0].repair == "take_out_orphan_results"
    assert mended.changes[0].size_after < mended.changes[0].size_before


def test_the_answer_keeps_the_shape_the_compactor_answered() -> None:
    wrapped = repair({"messages": HISTORY}, {"messages": window(HISTORY), "model": "m"})
    assert isinstance(wrapped.answer, dict)
    assert wrapped.answer["model"] == "m"
    bare = repair(HISTORY, window(HISTORY))
    assert isinstance(bare.answer, list)


def test_no_answer_when_a_broken_law_has_no_repair() -> None:
    budget = {"budget": {"limit": 10, "counter": "characters"}}
    mended = repair(HISTORY, HISTORY, budget)
    assert not mended.lawful
    assert mended.answer is None
    assert mended.reason.startswith("budget_respected has no mechanical repair")
    assert "budget_respected" not in COVERED


def test_no_answer_larger_than_the_input() -> None:
    # A summary longer than what it replaced: the goal brought back next to it outgrows the input.
    summary = {"role": "user", "content": "Summary: " + "read a.py; " * 80}
    mended = repair(HISTORY, [SYSTEM, summary, NEXT])
    assert [c.law for c in mended.changes][:1] == ["goal_preserved"]
    assert mended.answer is None
    assert mended.reason.startswith("the repaired answer would be larger than the input")


def test_no_answer_past_a_declared_budget() -> None:
    size = repair(HISTORY, window(HISTORY)).size_repaired
    tight = {"budget": {"limit": size - 1, "counter": "characters"}}
    mended = repair(HISTORY, window(HISTORY), tight)
    assert mended.answer is None
    assert mended.reason.startswith("budget_respected has no mechanical repair")
    # The budget is kept even where its laws are not judged.
    unjudged = Selection(None, ("budget_respected", "progress"))
    mended = repair(HISTORY, window(HISTORY), tight, selection=unjudged)
    assert mended.answer is None
    assert "over the declared budget of" in mended.reason


def test_only_the_selected_laws_are_judged_and_mended() -> None:
    pairing_only = Selection(["tool_pairing"], ())
    mended = repair(HISTORY, window(HISTORY), selection=pairing_only)
    assert [c.law for c in mended.changes] == ["tool_pairing"]
    assert mended.lawful


def test_a_bare_history_cannot_take_back_a_system_prompt() -> None:
    before = {"system": "Rules:\n- Never push to main", "messages": [GOAL, NEXT]}
    mended = repair(before, [NEXT], format="anthropic")
    assert mended.answer is None
    assert "bare history list" in mended.reason


def test_a_pair_that_is_not_valid_data_is_the_caller_s_error() -> None:
    with pytest.raises(PairError):
        repair(HISTORY, [{"role": "nobody"}])


def test_a_repair_that_fails_is_passed_over_and_said_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_repair(*sides: object) -> None:
        raise KeyError("a bug of the repair's own")

    broken_repair.__name__ = "take_out_orphan_results"
    monkeypatch.setitem(REPAIRS, "tool_pairing", (broken_repair, *REPAIRS["tool_pairing"][1:]))
    with caplog.at_level(logging.ERROR, logger="compactcheck.repair"):
        mended = repair(HISTORY, window(HISTORY))
    assert "repair take_out_orphan_results failed" in caplog.text
    # Mended the other way: the call brought back.
    assert mended.lawful
    assert mended.changes[0].repair == "bring_back_calls"
