"""order_preserved on a new message that repeats, word for word, an input message it drops."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.catalogue import select
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.messages import parse_messages
from compactcheck.invariants.verdict import Finding

Message = dict[str, Any]

FACTS = Facts(goal="fix the login bug")


def _text(role: str, content: str) -> Message:
    return {"role": role, "content": content}


def _call(call_id: str) -> Message:
    function = {"name": "grep", "arguments": '{"pattern": "cache"}'}
    return {
        "role": "assistant",
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _result(call_id: str, text: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def _order(before: list[Message], after: list[Message]) -> Finding:
    (law,) = select("messages", ["order_preserved"])
    return law.check(parse_messages(before), parse_messages(after), FACTS)


SYSTEM = _text("system", "You are a coding agent.")
# A round-1 collapse of a grep group, as Agent Framework's tool-result step writes it.
GREP = _text("assistant", "[Tool results: grep: src/dates.py:3: return user.cache]")
# Round 2's input: the older collapsed lines, then raw groups; 9..10 is a grep group that
# returns the very same text as the one collapsed in round 1.
BEFORE: list[Message] = [
    SYSTEM,
    _text("assistant", "[Tool results: list_dir: a.py]"),
    GREP,
    _text("assistant", "[Tool results: read_file: def a(): ...]"),
    _call("call_7"),
    _result("call_7", "ok"),
    _text("user", "Go on."),
    _call("call_8"),
    _result("call_8", "3 matches"),
    _call("call_9"),
    _result("call_9", "src/dates.py:3: return user.cache"),
    _call("call_10"),
    _result("call_10", "b.py"),
]


def test_a_new_line_that_repeats_a_dropped_one_in_a_gap_is_not_a_reorder() -> None:
    # The compactor drops the old lines and collapses call_9's group into a new line whose text
    # is GREP's: by message id the output is [0, new, 6, new, 11, 12], in order.
    after = [SYSTEM, _text("assistant", "[Tool results: read_file: ok]"), BEFORE[6], GREP]
    after += BEFORE[11:]
    finding = _order(BEFORE, after)
    assert finding.exercised
    assert finding.holds, finding.violations


def test_the_same_text_moved_beside_a_kept_neighbour_is_still_a_reorder() -> None:
    # Nothing between "Go on." (6) and call_8 (7) was dropped: the line cannot be new there.
    after = [SYSTEM, BEFORE[6], GREP, *BEFORE[7:]]
    finding = _order(BEFORE, after)
    assert [v.because for v in finding.violations] == [
        "the assistant message at output index 2 is out of its input order or repeated; it was "
        "at input index 2, on the wrong side of the user message at output index 1 (input "
        "index 6)"
    ]


def test_a_tool_result_moved_into_a_gap_is_still_a_reorder() -> None:
    # A call id ties a result to one input message: moved past its call's neighbours it is the
    # same message out of order, whatever was dropped around it.
    after = [SYSTEM, BEFORE[6], _call("call_9"), BEFORE[11], BEFORE[10], BEFORE[12]]
    assert not _order(BEFORE, after).holds
    swapped = [SYSTEM, BEFORE[11], BEFORE[12], BEFORE[4], BEFORE[5]]
    assert not _order(BEFORE, swapped).holds
