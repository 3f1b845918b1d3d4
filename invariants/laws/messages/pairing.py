"""The messages law on tool calls and their results."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.reading import Messages, call_ids
from compactcheck.invariants.messages import ChatMessage, ToolMessage
from compactcheck.invariants.verdict import Finding, Violation, witness


def _wiring(messages: Messages) -> tuple[dict[str, int], dict[str, int]]:
    """Where each call id is first made, and where its result first comes, by index."""
    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call_id in call_ids(message):
            calls.setdefault(call_id, index)
        if isinstance(message, ToolMessage):
            results.setdefault(message.tool_call_id, index)
    return calls, results


@invariant(
    "messages",
    "tool_pairing",
    "every tool result follows its call, and every kept call keeps the result the input had",
    ways=("result without its call", "call without its result"),
)
def tool_pairing(before: Messages, after: Messages, facts: Facts) -> Finding:
    """No orphan tool result, and no call that lost a result the input had."""
    del facts
    in_calls, in_results = _wiring(before)
    out_calls, out_results = _wiring(after)
    found: list[Violation] = []
    for index, message in enumerate(after):
        if isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            call_at = out_calls.get(call_id)
            if call_at is not None and call_at < index:
                continue
            if call_at is not None:
                where = f"its call is at output index {call_at}, after it"
                caller: ChatMessage | None = after[call_at]
            elif call_id in in_calls:
                where = (
                    f"its call was in the input at index {in_calls[call_id]} "
                    "and is not in the output"
                )
                caller = before[in_calls[call_id]]
            else:
                where = "its call is in neither the input nor the output"
                caller = None
            found.append(
                Violation(
                    "tool_pairing",
                    f"tool result {call_id} at output index {index} has no call before it; {where}",
                    witness(caller, message),
                    kind="result without its call",
                )
            )
        for call_id in call_ids(message):
            if call_id in in_results and call_id not in out_results:
                found.append(
                    Violation(
                        "tool_pairing",
                        f"tool call {call_id} at output index {index} lost its result: the "
                        f"result was in the input at index {in_results[call_id]} and is not "
                        "in the output",
                        witness(message, before[in_results[call_id]]),
                        kind="call without its result",
                    )
                )
    exercised = bool(in_calls or in_results or out_calls or out_results)
    return Finding("tool_pairing", exercised, tuple(found))
