"""The tool-call rules a chat provider enforces on a message list, as plain sentences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from compactcheck.invariants.errors import one_line
from compactcheck.invariants.formats import CHAT, Format, NativeRequest, parse_request
from compactcheck.invariants.laws.messages import FORMAT_RULES
from compactcheck.invariants.laws.messages.structure import problems


def chat_completions_problems(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where a chat message list breaks the chat completions tool-call rules; empty if nowhere.

    The rule (OpenAI's, and in substance Anthropic's and Gemini's): an assistant message with
    ``tool_calls`` is followed at once by one tool message per call id, before anything else;
    no tool message answers a call that was not made, or was already answered.
    """
    problems: list[str] = []
    made: dict[str, int] = {}
    answered: set[str] = set()
    # The calls of the last assistant message with tool_calls still waiting for their result.
    open_calls: dict[str, int] = {}
    # Calls still unanswered when another message came, and the index of that message.
    skipped: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            if call_id in open_calls:
                del open_calls[call_id]
                answered.add(call_id)
            elif call_id in answered:
                problems.append(
                    f"tool message {index} answers call {call_id!r} of assistant message "
                    f"{made[call_id]} a second time"
                )
            elif call_id in skipped:
                answered.add(call_id)
                problems.append(
                    f"tool message {index} answers call {call_id!r} of assistant message "
                    f"{made[call_id]} late, after message {skipped.pop(call_id)} came between "
                    "(a late result)"
                )
            else:
                problems.append(
                    f"tool message {index} answers call {call_id!r}, which no earlier assistant "
                    "message made (an orphan result)"
                )
            continue
        skipped.update(dict.fromkeys(open_calls, index))
        open_calls.clear()
        for call in message.get("tool_calls") or ():
            call_id = str(call.get("id"))
            if call_id in made:
                problems.append(
                    f"assistant message {index} reuses the call id {call_id!r} of assistant "
                    f"message {made[call_id]}"
                )
                continue
            made[call_id] = open_calls[call_id] = index
    for call_id, index in open_calls.items():
        problems.append(
            f"tool call {call_id!r} of assistant message {index} has no result: the history "
            "ends first (a missing result)"
        )
    for call_id, at in skipped.items():
        problems.append(
            f"tool call {call_id!r} of assistant message {made[call_id]} has no result: "
            f"message {at} comes first and none follows (a missing result)"
        )
    return problems


def request_problems(format: Format, request: NativeRequest) -> list[str]:
    """Where a parsed request of a provider format breaks its provider's structural rules."""
    return problems(FORMAT_RULES[format], request)


def provider_problems(format: Format, data: Mapping[str, Any]) -> list[str]:
    """Where a request of ``format``, as JSON data, breaks its provider's rules; [] if nowhere."""
    if format == CHAT:
        return chat_completions_problems(data.get("messages") or [])
    try:
        request = parse_request(format, data)
    except ValidationError as error:
        return [f"not a valid {format} request: {one_line(error)}"]
    return request_problems(format, request)
