"""What a chat provider and an event log demand of tool calls: the oracles of these tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from compactcheck.invariants import AgentEvent, parse_messages


def provider_rejections(messages: Sequence[dict[str, Any]], *, allow_pending: bool) -> list[str]:
    """Why an OpenAI-style provider would refuse these chat messages; empty when it accepts.

    Each tool result follows its call in an earlier assistant message, once; every call has a
    result, except the calls of a trailing assistant message when ``allow_pending``; call ids
    are unique; the list starts with a system prompt.
    """
    problems: list[str] = []
    try:
        parse_messages(list(messages))
    except ValidationError as error:
        return [f"not chat messages: {error.error_count()} validation error(s)"]
    if not messages or messages[0].get("role") != "system":
        problems.append("the first message is not a system prompt")
    called: dict[str, int] = {}
    answered: set[str] = set()
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            if call["id"] in called:
                problems.append(f"call id {call['id']!r} is used twice")
            called[call["id"]] = index
        if message["role"] == "tool":
            call_id = message["tool_call_id"]
            if call_id not in called:
                problems.append(f"result {call_id!r} at {index} has no earlier call")
            elif call_id in answered:
                problems.append(f"result {call_id!r} at {index} repeats an earlier result")
            answered.add(call_id)
    last = len(messages) - 1
    for call_id, index in called.items():
        if call_id not in answered and not (allow_pending and index == last):
            problems.append(f"call {call_id!r} at {index} never gets a result")
    return problems


def event_rejections(events: Sequence[AgentEvent], *, pending: int) -> list[str]:
    """Why an event log is not well formed; empty when it is.

    Ids are unique, sequences increase, every result follows its call once, every call of a
    batch was announced by it, and only the last ``pending`` calls lack results.
    """
    problems: list[str] = []
    seen: set[str] = set()
    previous = None
    announced: set[str] = set()
    calls: list[str] = []
    results: set[str] = set()
    for event in events:
        if event.event_id in seen:
            problems.append(f"event id {event.event_id!r} repeats")
        seen.add(event.event_id)
        if previous is not None and event.sequence <= previous:
            problems.append(f"sequence {event.sequence} after {previous}")
        previous = event.sequence
        if event.type == "tool_batch_started":
            ids = event.payload["callIds"]
            assert isinstance(ids, list)
            announced.update(str(call_id) for call_id in ids)
        elif event.type == "tool_call":
            call_id = event.text("callId")
            if call_id not in announced:
                problems.append(f"call {call_id!r} outside its batch")
            if call_id in calls:
                problems.append(f"call {call_id!r} repeats")
            calls.append(call_id)
        elif event.type == "tool_result":
            call_id = event.text("callId")
            if call_id not in calls:
                problems.append(f"result {call_id!r} before or without its call")
            elif call_id in results:
                problems.append(f"result {call_id!r} repeats")
            results.add(call_id)
    unanswered = [call_id for call_id in calls if call_id not in results]
    allowed = calls[len(calls) - pending :] if pending else []
    problems += [f"call {c!r} never gets a result" for c in unanswered if c not in allowed]
    return problems
