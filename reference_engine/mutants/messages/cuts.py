"""Message mutants with a wrong cut: a window, a trim or a repair that ignores what it cuts."""

from __future__ import annotations

from compactcheck.invariants.facts import Budget
from compactcheck.invariants.laws.messages import call_ids
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from compactcheck.reference_engine.messages import compact_messages
from compactcheck.reference_engine.mutants.messages.builders import (
    MUTANT_BUDGET,
    MUTANT_MAX_MESSAGES,
    Messages,
    reference,
)


def cut_after_results(messages: Messages) -> Messages:
    """Refuses only a cut right after a call message, so a cut between two results of one
    parallel batch, or before a late result, passes for safe."""
    safe = [p == 0 or not call_ids(messages[p - 1]) for p in range(len(messages) + 1)]
    return compact_messages(messages, MUTANT_MAX_MESSAGES, safe=safe)


def keep_last_n(messages: Messages) -> Messages:
    """Trimming by count: the system prompt and the last few messages, whatever they are."""
    if len(messages) <= MUTANT_MAX_MESSAGES:
        return messages
    systems = tuple(m for m in messages if isinstance(m, SystemMessage))
    rest = [m for m in messages if not isinstance(m, SystemMessage)]
    return (*systems, *rest[-(MUTANT_MAX_MESSAGES - len(systems)) :])


def drop_late_results(messages: Messages) -> Messages:
    """A "repair" that only trusts results in the block right after their call, and drops any
    result that arrived later as stale; the call stays. Its roomier cap keeps more of the
    late results for the repair to damage."""
    kept: list[ChatMessage] = []
    block: set[str] = set()
    for message in compact_messages(messages, 2 * MUTANT_MAX_MESSAGES):
        if isinstance(message, ToolMessage):
            if message.tool_call_id in block:
                kept.append(message)
            continue
        block = set(call_ids(message))
        kept.append(message)
    return tuple(kept)


def drop_trailing_assistant(messages: Messages) -> Messages:
    """Insists that the context end on a user or tool turn, and drops a final assistant reply."""
    compacted = list(reference(messages))
    while compacted and isinstance(compacted[-1], AssistantMessage):
        if call_ids(compacted[-1]):
            break
        compacted.pop()
    return tuple(compacted)


def empty_when_over(messages: Messages) -> Messages:
    """An overflow guard that gives up and returns nothing rather than an oversized context."""
    return () if len(messages) > MUTANT_MAX_MESSAGES else messages


def assistant_first(messages: Messages) -> Messages:
    """Counts its window in exchanges from the assistant's side: the user turns before the first
    kept assistant message go, so the history opens with an assistant turn."""
    compacted = list(reference(messages))
    start = next((i for i, m in enumerate(compacted) if not isinstance(m, SystemMessage)), None)
    while start is not None and start < len(compacted) - 1:
        if not isinstance(compacted[start], UserMessage):
            break
        del compacted[start]
    return tuple(compacted)


def budget_counts_messages(messages: Messages) -> Messages:
    """Reads a token budget as a number of messages: no history is ever long enough to trim."""
    miscounted = Budget(limit=MUTANT_BUDGET.limit, counter="messages")
    return compact_messages(messages, MUTANT_BUDGET.limit, miscounted)


def summary_without_trim(messages: Messages) -> Messages:
    """Writes the summary of the span it meant to drop, then forgets to drop the span: over the
    budget, the context only grows."""
    compacted = compact_messages(messages, MUTANT_MAX_MESSAGES)
    kept = set(map(id, messages))
    summaries = [message for message in compacted if id(message) not in kept]
    systems = 0
    while systems < len(messages) and isinstance(messages[systems], SystemMessage):
        systems += 1
    return (*messages[:systems], *summaries, *messages[systems:])
