"""Calls cut into conversations and lineages: what is compared, and what is counted as not."""

from __future__ import annotations

from typing import Any

from compactcheck.observed.traces import audit_traces
from compactcheck.observed.traces.conversations import NEW_SEQUENCE
from compactcheck.observed.traces.records import Call, Record

SYSTEM = {"role": "system", "content": "You are a careful coding agent."}


def _call(span: str, start: int, history: list[dict[str, Any]], agent: str = "") -> Call:
    return Call(
        trace_id="t" * 32,
        span_id=span,
        start_ns=start,
        format="openai-chat",
        history=tuple(history),
        output=({"role": "assistant", "content": f"answer {span}"},),
        agent=agent,
    )


def _two_conversations_in_one_trace() -> list[Record]:
    first = [SYSTEM, {"role": "user", "content": "Fix the login bug."}]
    other = [{"role": "user", "content": "Summarise these notes."}]
    going_on = [
        {"role": "assistant", "content": "answer a1"},
        {"role": "user", "content": "Go on."},
    ]
    return [_call("a1", 1, first), _call("a2", 2, [*first, *going_on]), _call("b1", 3, other)]


def test_a_call_sharing_no_message_with_the_one_before_is_counted_with_its_reason() -> None:
    report = audit_traces(_two_conversations_in_one_trace(), name="records")
    target = report.targets[0]
    reading = target.traces
    assert reading is not None
    assert reading.model_calls == 3
    assert reading.pairs == 1  # a1 -> a2 only
    assert reading.compactions == 0
    assert reading.lineages == 2
    assert reading.skipped == {NEW_SEQUENCE: 1}
    assert f"1 call(s) not judged: {NEW_SEQUENCE}" in target.errors


def test_the_first_call_of_a_conversation_is_not_counted_as_skipped() -> None:
    reading = audit_traces(_two_conversations_in_one_trace()[:2], name="records").targets[0].traces
    assert reading is not None
    assert reading.skipped == {}
    assert reading.pairs == 1


def test_a_named_agent_is_compared_with_its_own_calls_only() -> None:
    records = _two_conversations_in_one_trace()
    records[2] = _call(
        "b1", 3, [{"role": "user", "content": "Summarise these notes."}], "summariser"
    )
    reading = audit_traces(records, name="records").targets[0].traces
    assert reading is not None
    assert reading.skipped == {}  # its own agent's first call: nothing before it to compare
    assert reading.lineages == 2
