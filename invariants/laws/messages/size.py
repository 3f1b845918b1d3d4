"""The messages laws on size: how a list is measured, and what a declared budget asks of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from compactcheck.invariants.counting import measure
from compactcheck.invariants.facts import Budget, Counter, Facts
from compactcheck.invariants.law import invariant
from compactcheck.invariants.laws.messages.reading import Messages, MessagesLaw, call_ids, label
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    ToolMessage,
    content_text,
)
from compactcheck.invariants.verdict import Finding, Violation, value_diff, witness


def _texts(message: ChatMessage) -> list[str]:
    """What a message's size is counted over: its content, then its tool calls' arguments."""
    texts = [content_text(message.content)]
    if isinstance(message, AssistantMessage) and message.tool_calls:
        texts.extend(call.function.arguments for call in message.tool_calls)
    return texts


def message_chars(message: ChatMessage) -> int:
    """Characters of a message's content plus the arguments of its tool calls."""
    return sum(map(len, _texts(message)))


def message_size(messages: Iterable[ChatMessage], counter: Counter) -> int:
    """The size of a message list under a budget counter (``compactcheck.invariants.counting``
    says what each counts; ``approx_tokens`` is ceil(characters / 4), a rough approximation of a
    tokenizer, not a real one, chosen so that checks stay offline and deterministic)."""
    return measure(map(_texts, messages), counter)


def kept_floor(messages: Messages) -> tuple[ChatMessage, ...]:
    """What an answer must keep whole whatever the budget: the last message and its call."""
    # recent_tail_preserved asks for the last message verbatim and tool_pairing for the call a
    # last tool result answers, so no compactor keeping both goes below their size. A last
    # message that makes calls may be dropped (its results have not arrived): it asks nothing.
    if not messages or call_ids(last := messages[-1]):
        return ()
    if isinstance(last, ToolMessage):
        # The last message makes no calls, so the scan may start at it: no copy of the list.
        caller = next((m for m in reversed(messages) if last.tool_call_id in call_ids(m)), None)
        if caller is not None:
            return (caller, last)
    return (last,)


_BudgetCheck = Callable[[Messages, Messages, Budget], Finding]


def _budget_law(id: str, statement: str) -> Callable[[_BudgetCheck], MessagesLaw]:
    """Make a checker of the declared budget a messages law.

    Without a budget such a law cannot fail, so it is not exercised. Nor is it where what must
    be kept whole (``kept_floor``: the last message and the call it answers) already measures
    more than the budget: no compactor keeping the other laws could fit, and a violation there
    would blame it for the history. It is judged on unchanged answers too, since an answer
    handed back unchanged over budget is what it catches.
    """
    as_law = invariant("messages", id, statement, requires_budget=True, requires_change=False)

    def declare(judge: _BudgetCheck) -> MessagesLaw:
        def check(before: Messages, after: Messages, facts: Facts) -> Finding:
            budget = facts.budget
            if budget is None or message_size(kept_floor(before), budget.counter) > budget.limit:
                return Finding(id, False)
            return judge(before, after, budget)

        return as_law(check)

    return declare


@_budget_law(
    "budget_respected",
    "the output fits the declared budget under its counter (approx_tokens is chars / 4)",
)
def budget_respected(before: Messages, after: Messages, budget: Budget) -> Finding:
    """The output is no larger than the caller's declared budget."""
    del before
    size = message_size(after, budget.counter)
    if size <= budget.limit:
        return Finding("budget_respected", True)
    largest = max(range(len(after)), key=lambda j: message_chars(after[j]), default=None)
    biggest = (
        f"; its largest message is the {label(after[largest])} at output index {largest}"
        if largest is not None
        else ""
    )
    violation = Violation(
        "budget_respected",
        f"the output measures {size} {budget.counter} against a budget of {budget.limit}" + biggest,
        witness(*after),
        value_diff(budget.limit, size),
    )
    return Finding("budget_respected", True, (violation,))


@_budget_law(
    "progress",
    "an input over the declared budget compacts to a smaller output under the budget's counter",
)
def progress(before: Messages, after: Messages, budget: Budget) -> Finding:
    """A compactor handed more than the budget makes the history smaller, so it cannot loop."""
    size_in = message_size(before, budget.counter)
    if size_in <= budget.limit:
        # Under budget there is nothing the compactor must do: the law could not fail here.
        return Finding("progress", False)
    size_out = message_size(after, budget.counter)
    if size_out < size_in:
        return Finding("progress", True)
    violation = Violation(
        "progress",
        f"the input measures {size_in} {budget.counter}, over the budget of {budget.limit}, "
        f"and the output measures {size_out}: compaction made no progress",
        (),
        value_diff(size_in, size_out),
    )
    return Finding("progress", True, (violation,))
