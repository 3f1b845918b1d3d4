"""Broken message compactors, each breaking one messages-view law the way real ones do.

Each mutant is the reference message compactor with one bug: a wrong cut rule, a wrong head, a
careless summary or an edit of the output. They are capped at ``MUTANT_MAX_MESSAGES`` (those that
differ say why); the budget mutant is declared with ``MUTANT_BUDGET``, which the facts must
carry when it is judged (``Mutant.budget``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from compactcheck.invariants.facts import Budget
from compactcheck.invariants.laws.messages import call_ids
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
    dump_messages,
    parse_messages,
)
from compactcheck.reference_engine.messages import compact_messages, summarise, summary_lines
from compactcheck.reference_engine.messages.summary import first_line, summary_text
from compactcheck.reference_engine.mutants.mutant import Mutant

MUTANT_MAX_MESSAGES = 6
MUTANT_BUDGET = Budget(limit=60, counter="approx_tokens")

Messages = tuple[ChatMessage, ...]
Backend = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _backend(compact: Callable[[Messages], Sequence[ChatMessage]]) -> Backend:
    """A compactor on OpenAI chat dicts from one on parsed messages."""

    def run(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return dump_messages(list(compact(parse_messages(messages))))

    return run


def _reference(messages: Messages) -> Messages:
    return compact_messages(messages, MUTANT_MAX_MESSAGES)


def _summary(before: Messages, after: Messages) -> ChatMessage | None:
    """The message the reference wrote in place of a span: the one not taken from its input."""
    taken = {id(message) for message in before}
    return next((message for message in after if id(message) not in taken), None)


def _cut_after_results(messages: Messages) -> Messages:
    # Refuses only a cut right after a call message, so a cut between two results of one
    # parallel batch, or before a late result, passes for safe.
    safe = [p == 0 or not call_ids(messages[p - 1]) for p in range(len(messages) + 1)]
    return compact_messages(messages, MUTANT_MAX_MESSAGES, safe=safe)


def _keep_last_n(messages: Messages) -> Messages:
    # Trimming by count: the system prompt and the last few messages, whatever they are.
    if len(messages) <= MUTANT_MAX_MESSAGES:
        return messages
    systems = tuple(m for m in messages if isinstance(m, SystemMessage))
    rest = [m for m in messages if not isinstance(m, SystemMessage)]
    return (*systems, *rest[-(MUTANT_MAX_MESSAGES - len(systems)) :])


def _drop_late_results(messages: Messages) -> Messages:
    # A "repair" that only trusts results in the block right after their call, and drops any
    # result that arrived later as stale; the call stays. Its roomier cap keeps more of the
    # late results for the repair to damage.
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


def _headline_summary(span: Sequence[ChatMessage]) -> ChatMessage:
    """A summary that keeps one line per message, users' words included."""
    lines = [
        f"- {message.role}: {first_line(content_text(message.content))}"
        if isinstance(message, UserMessage)
        else line
        for message in span
        for line in summary_lines(message)
    ]
    return UserMessage(content=summary_text(lines, len(span)))


def _resummarise_goal(messages: Messages) -> Messages:
    # Treats the first user message (often an earlier summary) as history like any other, and
    # re-summarises it to its first line: the task erodes a little on every compaction.
    head = 0
    while head < len(messages) and isinstance(messages[head], SystemMessage):
        head += 1
    return compact_messages(messages, MUTANT_MAX_MESSAGES, head=head, summariser=_headline_summary)


def _demote_system(messages: Messages) -> Messages:
    # Folds the system prompt into the summary, as summarising middlewares that summarise
    # "everything older than the tail" do.
    compacted = _reference(messages)
    summary = _summary(messages, compacted)
    if summary is None:
        return compacted
    prompts = [content_text(m.content) for m in compacted if isinstance(m, SystemMessage)]
    folded = UserMessage(
        content="\n".join([content_text(summary.content), *(f"- system: {p}" for p in prompts)])
    )
    return tuple(
        folded if m is summary else m for m in compacted if not isinstance(m, SystemMessage)
    )


def _restate_constraints(messages: Messages) -> Messages:
    # The summary ends by restating every constraint line it can find in the system prompt and
    # the user turns, unaware that an update replaced one of them.
    stated = [
        line.split("] ", 1)[1].split(" (replaces ", 1)[0]
        for m in messages
        if isinstance(m, SystemMessage | UserMessage)
        for line in content_text(m.content).splitlines()
        if line.startswith("- [") and "] " in line
    ]

    def summariser(span: Sequence[ChatMessage]) -> ChatMessage:
        summary = content_text(summarise(span).content)
        restated = (f"Constraint in force: {text}" for text in dict.fromkeys(stated))
        return UserMessage(content="\n".join([summary, *restated]))

    return compact_messages(messages, MUTANT_MAX_MESSAGES, summariser=summariser)


def _weaken_constraints(messages: Messages) -> Messages:
    # Rewrites the system prompt's rules as preferences: each "- [c1] ..." line is kept, its
    # force relaxed, as a summariser that "tidies" a prompt does.
    def relaxed(message: ChatMessage) -> ChatMessage:
        if not isinstance(message, SystemMessage):
            return message
        lines = content_text(message.content).splitlines()
        softened = [f"{line}, where possible" if line.startswith("- [") else line for line in lines]
        return SystemMessage(content="\n".join(softened))

    return tuple(relaxed(message) for message in _reference(messages))


def _invent_constraint(messages: Messages) -> Messages:
    # The summary ends with a rule nobody gave, as a model that fills in "constraints" does.
    compacted = _reference(messages)
    summary = _summary(messages, compacted)
    if summary is None:
        return compacted
    text = f"{content_text(summary.content)}\nConstraint: Store sessions in Redis 7."
    return tuple(
        UserMessage(content=text) if message is summary else message for message in compacted
    )


def _drop_trailing_assistant(messages: Messages) -> Messages:
    # Insists that the context end on a user or tool turn, and drops a final assistant reply.
    compacted = list(_reference(messages))
    while compacted and isinstance(compacted[-1], AssistantMessage):
        if call_ids(compacted[-1]):
            break
        compacted.pop()
    return tuple(compacted)


def _summary_first(messages: Messages) -> Messages:
    # Puts the summary at the very top, above the system prompt it should follow.
    compacted = _reference(messages)
    summary = _summary(messages, compacted)
    if summary is None:
        return compacted
    return (summary, *(m for m in compacted if m is not summary))


def _truncate_tool_output(messages: Messages) -> Messages:
    # Prunes long tool outputs of the kept messages in place; a roomier cap keeps more of them.
    limit = 8
    return tuple(
        ToolMessage(tool_call_id=m.tool_call_id, content=content_text(m.content)[:limit] + "...")
        if isinstance(m, ToolMessage) and len(content_text(m.content)) > limit
        else m
        for m in compact_messages(messages, 2 * MUTANT_MAX_MESSAGES)
    )


def _cleared(message: AssistantMessage) -> AssistantMessage:
    """The calls of ``message`` with their arguments cleared."""
    assert message.tool_calls is not None
    calls = tuple(
        call.model_copy(update={"function": call.function.model_copy(update={"arguments": "{}"})})
        for call in message.tool_calls
    )
    return message.model_copy(update={"tool_calls": calls})


def _clear_call_arguments(messages: Messages) -> Messages:
    # Clears the arguments of the older tool calls it keeps, to save their tokens (LangChain's
    # ClearToolUsesEdit with clear_tool_inputs): the kept call no longer says what it did.
    compacted = _reference(messages)
    newest = len(compacted) - 1
    return tuple(
        _cleared(m) if isinstance(m, AssistantMessage) and m.tool_calls and at < newest else m
        for at, m in enumerate(compacted)
    )


def _terse_lines(message: ChatMessage) -> list[str]:
    """Summary lines that name each call without its arguments and each result by its status."""
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return [f"- assistant called {call.function.name}" for call in message.tool_calls]
    if isinstance(message, ToolMessage):
        failed = content_text(message.content).startswith("error")
        return [f"- tool result {message.tool_call_id}: {'failed' if failed else 'ok'}"]
    return summary_lines(message)


def _summary_without_arguments(messages: Messages) -> Messages:
    # A terse summary: "called edit_file: ok" says that a file changed, not which one.
    def summariser(span: Sequence[ChatMessage]) -> ChatMessage:
        lines = [line for message in span for line in _terse_lines(message)]
        return UserMessage(content=summary_text(lines, len(span)))

    return compact_messages(messages, MUTANT_MAX_MESSAGES, summariser=summariser)


def _empty_when_over(messages: Messages) -> Messages:
    # An overflow guard that gives up and returns nothing rather than an oversized context.
    return () if len(messages) > MUTANT_MAX_MESSAGES else messages


def _drop_user_turns(messages: Messages) -> Messages:
    # Writes the summary as a system message and drops user turns as "already summarised".
    compacted = _reference(messages)
    summary = _summary(messages, compacted)
    if summary is None:
        return compacted
    return tuple(
        SystemMessage(content=m.content) if m is summary else m
        for m in compacted
        if m is summary or not isinstance(m, UserMessage)
    )


def _assistant_first(messages: Messages) -> Messages:
    # Counts its window in exchanges from the assistant's side: the user turns before the first
    # kept assistant message go, so the history opens with an assistant turn.
    compacted = list(_reference(messages))
    start = next((i for i, m in enumerate(compacted) if not isinstance(m, SystemMessage)), None)
    while start is not None and start < len(compacted) - 1:
        if not isinstance(compacted[start], UserMessage):
            break
        del compacted[start]
    return tuple(compacted)


def _budget_counts_messages(messages: Messages) -> Messages:
    # Reads a token budget as a number of messages: no history is ever long enough to trim.
    miscounted = Budget(limit=MUTANT_BUDGET.limit, counter="messages")
    return compact_messages(messages, MUTANT_BUDGET.limit, miscounted)


def _summary_without_trim(messages: Messages) -> Messages:
    # Writes the summary of the span it meant to drop, then forgets to drop the span: over the
    # budget, the context only grows.
    compacted = compact_messages(messages, MUTANT_MAX_MESSAGES)
    kept = set(map(id, messages))
    summaries = [message for message in compacted if id(message) not in kept]
    systems = 0
    while systems < len(messages) and isinstance(messages[systems], SystemMessage):
        systems += 1
    return (*messages[:systems], *summaries, *messages[systems:])


def _mutant(
    name: str,
    targets: str,
    description: str,
    compact: Callable[[Messages], Sequence[ChatMessage]],
    max_witness: int,
    budget: Budget | None = None,
    malformed: tuple[str, ...] = (),
) -> Mutant:
    return Mutant(
        name,
        "messages",
        targets,
        description,
        lambda: _backend(compact),
        max_witness,
        budget,
        malformed,
    )


MESSAGE_MUTANTS: tuple[Mutant, ...] = (
    _mutant(
        "messages-cut-parallel-results",
        "tool_pairing",
        "treats any cut not right after a call as safe, so the tail can start between "
        "parallel results",
        _cut_after_results,
        8,
    ),
    _mutant(
        "messages-keep-last-n",
        "tool_pairing",
        "keeps the system prompt and the last messages blindly, orphaning a tool result",
        _keep_last_n,
        12,
    ),
    _mutant(
        "messages-drop-late-results",
        "tool_pairing",
        "drops a tool result that did not arrive right after its call, keeping the call",
        _drop_late_results,
        12,
        malformed=("late-results",),
    ),
    _mutant(
        "messages-resummarise-goal",
        "goal_preserved",
        "re-summarises the first user message to its first line, eroding the task",
        _resummarise_goal,
        8,
    ),
    _mutant(
        "messages-demote-system",
        "constraints_preserved",
        "folds the system prompt into the summary, a user message",
        _demote_system,
        8,
    ),
    _mutant(
        "messages-stale-constraint",
        "constraints_preserved",
        "ends the summary by restating every constraint it saw, superseded ones too",
        _restate_constraints,
        10,
    ),
    _mutant(
        "messages-weaken-constraints",
        "constraints_not_weakened",
        "restates the system prompt's rules as preferences ('..., where possible')",
        _weaken_constraints,
        8,
    ),
    _mutant(
        "messages-invent-constraint",
        "no_invented_constraints",
        "ends the summary with a constraint nobody gave",
        _invent_constraint,
        8,
    ),
    _mutant(
        "messages-drop-trailing-assistant",
        "recent_tail_preserved",
        "drops a final assistant reply so that the context ends on a user or tool turn",
        _drop_trailing_assistant,
        4,
    ),
    _mutant(
        "messages-summary-first",
        "order_preserved",
        "puts the summary above the system prompt instead of in the span it replaces",
        _summary_first,
        8,
    ),
    _mutant(
        "messages-truncate-tool-output",
        "tool_results_unpruned",
        "prunes long tool outputs of kept messages in place",
        _truncate_tool_output,
        8,
    ),
    _mutant(
        "messages-clear-call-arguments",
        "kept_messages_verbatim",
        "clears the arguments of the older tool calls it keeps, to save their tokens",
        _clear_call_arguments,
        8,
    ),
    _mutant(
        "messages-summary-drops-arguments",
        "facts_preserved",
        "summarises tool calls by name and results by status, losing the files they touched",
        _summary_without_arguments,
        8,
    ),
    _mutant(
        "messages-empty-over-budget",
        "non_empty",
        "returns an empty list when the history is longer than its cap",
        _empty_when_over,
        8,
    ),
    _mutant(
        "messages-drop-user-turns",
        "user_turn_present",
        "writes the summary as a system message and drops every user turn",
        _drop_user_turns,
        8,
    ),
    _mutant(
        "messages-assistant-first",
        "user_turn_first",
        "drops the user turns at the head of its window, so an assistant turn opens the history",
        _assistant_first,
        8,
    ),
    _mutant(
        "messages-budget-counts-messages",
        "budget_respected",
        "reads its token budget as a message count, so it never trims",
        _budget_counts_messages,
        12,
        MUTANT_BUDGET,
    ),
    _mutant(
        "messages-summary-without-trim",
        "progress",
        "adds the summary of the span it meant to drop but keeps the span, so the context grows",
        _summary_without_trim,
        12,
        MUTANT_BUDGET,
    ),
)
