"""The messages-view laws: what a compacted OpenAI chat message list must keep.

Every checker takes the parsed input and output lists and the run's facts, and is linear in the
number of messages: lookups go through dicts keyed by message or call id, never through a scan
of one list per element of the other.
"""

from __future__ import annotations

import math
from collections import Counter as Tally
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import JsonValue

from invariants.catalogue import invariant
from invariants.facts import Counter, Facts
from invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from invariants.verdict import Finding, Violation, value_diff

Messages = Sequence[ChatMessage]

# A message's identity for "verbatim": role, plain text and wiring. Text parts and a plain string
# with the same text count as the same message, since frameworks convert between the two freely.
MessageKey = tuple[str, str, str | None, tuple[tuple[str, str, str], ...], str | None]

# Keeps an identifier from matching across the boundary of two messages in a joined corpus.
_SEPARATOR = "\x00"


def message_key(message: ChatMessage) -> MessageKey:
    """What two messages must share to be the same message, verbatim."""
    calls: tuple[tuple[str, str, str], ...] = ()
    call_id: str | None = None
    if isinstance(message, AssistantMessage) and message.tool_calls:
        calls = tuple(
            (call.id, call.function.name, call.function.arguments) for call in message.tool_calls
        )
    if isinstance(message, ToolMessage):
        call_id = message.tool_call_id
    name = None if isinstance(message, ToolMessage) else message.name
    return (message.role, content_text(message.content), name, calls, call_id)


def call_ids(message: ChatMessage) -> tuple[str, ...]:
    """The ids of the tool calls an assistant message makes."""
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return tuple(call.id for call in message.tool_calls)
    return ()


def message_chars(message: ChatMessage) -> int:
    """Characters of a message's content plus the arguments of its tool calls."""
    size = len(content_text(message.content))
    if isinstance(message, AssistantMessage) and message.tool_calls:
        size += sum(len(call.function.arguments) for call in message.tool_calls)
    return size


def message_size(messages: Iterable[ChatMessage], counter: Counter) -> int:
    """The size of a message list under a budget counter.

    ``approx_tokens`` is ceil(characters / 4): a rough approximation of a tokenizer, not a real
    one, chosen so that checks stay offline and deterministic.
    """
    listed = list(messages)
    if counter == "messages":
        return len(listed)
    chars = sum(message_chars(message) for message in listed)
    if counter == "characters":
        return chars
    return math.ceil(chars / 4)


def searchable_text(message: ChatMessage) -> str:
    """Everything of a message an identifier can hide in: text, call ids, names, arguments."""
    parts = [content_text(message.content)]
    if isinstance(message, AssistantMessage) and message.tool_calls:
        for call in message.tool_calls:
            parts += [call.id, call.function.name, call.function.arguments]
    if isinstance(message, ToolMessage):
        parts.append(message.tool_call_id)
    return _SEPARATOR.join(parts)


def _corpus(messages: Messages) -> str:
    return _SEPARATOR.join(searchable_text(message) for message in messages)


def _first_containing(messages: Messages, needle: str) -> int | None:
    for index, message in enumerate(messages):
        if needle in searchable_text(message):
            return index
    return None


def _witness(*messages: ChatMessage | None) -> tuple[JsonValue, ...]:
    return tuple(message.to_json_data() for message in messages if message is not None)


def _label(message: ChatMessage) -> str:
    """A short name for a message in a sentence: its role, and its call ids where it has any."""
    if isinstance(message, ToolMessage):
        return f"tool result {message.tool_call_id}"
    ids = call_ids(message)
    if ids:
        return f"assistant call {', '.join(ids)}"
    return f"{message.role} message"


@invariant(
    "messages",
    "tool_pairing",
    "every tool result follows its call, and every kept call keeps the result the input had",
)
def tool_pairing(before: Messages, after: Messages, facts: Facts) -> Finding:
    """No orphan tool result, and no call that lost a result the input had."""
    del facts
    in_calls: dict[str, int] = {}
    in_results: dict[str, int] = {}
    for index, message in enumerate(before):
        for call_id in call_ids(message):
            in_calls.setdefault(call_id, index)
        if isinstance(message, ToolMessage):
            in_results.setdefault(message.tool_call_id, index)
    out_calls: dict[str, int] = {}
    out_results: dict[str, int] = {}
    for index, message in enumerate(after):
        for call_id in call_ids(message):
            out_calls.setdefault(call_id, index)
        if isinstance(message, ToolMessage):
            out_results.setdefault(message.tool_call_id, index)
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
                    _witness(caller, message),
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
                        _witness(message, before[in_results[call_id]]),
                    )
                )
    exercised = bool(in_calls or in_results or out_calls or out_results)
    return Finding("tool_pairing", exercised, tuple(found))


@invariant(
    "messages",
    "goal_preserved",
    "the first user message survives verbatim, or its text survives verbatim inside a summary",
)
def goal_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The first user message, which states the task, is not lost."""
    del facts
    first = next(((index, m) for index, m in enumerate(before) if isinstance(m, UserMessage)), None)
    if first is None:
        return Finding("goal_preserved", False)
    index, message = first
    text = content_text(message.content)
    if any(text in content_text(kept.content) for kept in after):
        return Finding("goal_preserved", True)
    first_out = next((m for m in after if isinstance(m, UserMessage)), None)
    violation = Violation(
        "goal_preserved",
        f"the first user message (input index {index}) does not survive: no output message is "
        "it or contains its text",
        _witness(message),
        value_diff(text, content_text(first_out.content)) if first_out is not None else None,
    )
    return Finding("goal_preserved", True, (violation,))


@dataclass(frozen=True)
class _Mention:
    """The last line of a message list that mentions a constraint, and how it reads there."""

    index: int
    current: bool


def _constraint_mentions(messages: Messages, texts: Sequence[str]) -> dict[str, _Mention]:
    """How each constraint text reads at its last mention.

    A line asserts the constraint whose text comes first on it; a constraint named later on the
    same line is read as the value it replaces ("- [c3] Use 3.12 (replaces [c1] Use 3.11)").
    """
    last: dict[str, _Mention] = {}
    if not texts:
        return last
    for index, message in enumerate(messages):
        for line in content_text(message.content).splitlines():
            hits = sorted((position, text) for text in texts if (position := line.find(text)) >= 0)
            for rank, (_, text) in enumerate(hits):
                last[text] = _Mention(index, rank == 0)
    return last


@invariant(
    "messages",
    "constraints_preserved",
    "system messages survive as system messages; current constraints stay, superseded ones are "
    "not reasserted",
)
def constraints_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The system prompt is not demoted, and the constraints read as they did."""
    found: list[Violation] = []
    out_system_texts = {
        content_text(message.content) for message in after if isinstance(message, SystemMessage)
    }
    systems = [(i, m) for i, m in enumerate(before) if isinstance(m, SystemMessage)]
    for index, system in systems:
        text = content_text(system.content)
        if text in out_system_texts:
            continue
        # Only a system message that did not survive as such pays for this scan.
        holder = next(
            ((j, m) for j, m in enumerate(after) if text in content_text(m.content)), None
        )
        if holder is not None and isinstance(holder[1], SystemMessage):
            continue
        if holder is not None:
            j, kept = holder
            found.append(
                Violation(
                    "constraints_preserved",
                    f"the system message at input index {index} is not a system message in the "
                    f"output: its text was demoted into the {kept.role} message at output "
                    f"index {j}",
                    _witness(system, kept),
                    value_diff({"role": "system"}, {"role": kept.role}),
                )
            )
        else:
            found.append(
                Violation(
                    "constraints_preserved",
                    f"the system message at input index {index} is missing from the output",
                    _witness(system),
                )
            )
    in_corpus, out_corpus = _corpus(before), _corpus(after)
    current = [text for text in facts.constraints if text in in_corpus]
    for text in current:
        if text not in out_corpus:
            at = _first_containing(before, text)
            found.append(
                Violation(
                    "constraints_preserved",
                    f"current constraint {text!r} (input index {at}) is missing from the output",
                    _witness(before[at] if at is not None else None),
                )
            )
    stale = [text for text in facts.superseded_constraints if text in in_corpus]
    everything = [*current, *stale]
    read_before = _constraint_mentions(before, everything)
    read_after = _constraint_mentions(after, everything)
    for text in stale:
        now, then = read_after.get(text), read_before.get(text)
        if now is None or not now.current or (then is not None and then.current):
            continue
        replaced_at = f" (input index {then.index})" if then is not None else ""
        found.append(
            Violation(
                "constraints_preserved",
                f"superseded constraint {text!r} is asserted as current by the "
                f"{_label(after[now.index])} at output index {now.index}, though the input had "
                f"replaced it{replaced_at}",
                _witness(after[now.index], before[then.index] if then is not None else None),
            )
        )
    exercised = bool(systems or current or stale)
    return Finding("constraints_preserved", exercised, tuple(found))


@invariant(
    "messages",
    "recent_tail_preserved",
    "the last input message is the last output message, verbatim (a pending tool call may go)",
)
def recent_tail_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The most recent message survives, in last place."""
    del facts
    if not before:
        return Finding("recent_tail_preserved", False)
    last = before[-1]
    key = message_key(last)
    if after and message_key(after[-1]) == key:
        return Finding("recent_tail_preserved", True)
    at = next((j for j, m in enumerate(after) if message_key(m) == key), None)
    # The input ends on calls whose results have not arrived; dropping them whole is allowed
    # (pairing judges what happens to them), keeping them anywhere but last is not.
    pending = bool(call_ids(last))
    if pending and at is None:
        return Finding("recent_tail_preserved", False)
    where = f"it is at output index {at}" if at is not None else "it is not in the output"
    tail = after[-1] if after else None
    violation = Violation(
        "recent_tail_preserved",
        f"the last input message ({_label(last)}, input index {len(before) - 1}) is not the "
        f"last output message; {where}",
        _witness(last, tail),
        value_diff(last.to_json_data(), tail.to_json_data() if tail is not None else None),
    )
    return Finding("recent_tail_preserved", True, (violation,))


def _identity(message: ChatMessage) -> str | None:
    """What ties a changed message to its original: its tool call ids."""
    if isinstance(message, ToolMessage):
        return f"result:{message.tool_call_id}"
    ids = call_ids(message)
    return f"calls:{','.join(ids)}" if ids else None


class _Matcher:
    """Matches output messages to input positions, leftmost forward or rightmost backward.

    A bound only moves one way during a pass, so each position list is walked once per pass:
    the matching is linear even when one text ("Go on.") repeats many times.
    """

    def __init__(self, positions: dict[object, list[int]]) -> None:
        self.positions = positions
        self.ahead: dict[object, int] = {}
        self.behind: dict[object, int] = {}

    def first_above(self, slot: object, bound: int) -> int | None:
        """The leftmost input position of ``slot`` above ``bound``."""
        options = self.positions[slot]
        cursor = self.ahead.get(slot, 0)
        while cursor < len(options) and options[cursor] <= bound:
            cursor += 1
        self.ahead[slot] = cursor
        return options[cursor] if cursor < len(options) else None

    def last_below(self, slot: object, bound: int) -> int | None:
        """The rightmost input position of ``slot`` below ``bound``."""
        options = self.positions[slot]
        cursor = self.behind.get(slot, len(options) - 1)
        while cursor >= 0 and options[cursor] >= bound:
            cursor -= 1
        self.behind[slot] = cursor
        return options[cursor] if cursor >= 0 else None


@invariant(
    "messages",
    "order_preserved",
    "kept messages keep their order and content; one summary replaces one contiguous span",
)
def order_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Kept messages are unchanged and in order; at most one summary, in place of one span."""
    del facts
    positions: dict[object, list[int]] = {}
    for index, message in enumerate(before):
        positions.setdefault(message_key(message), []).append(index)
        identity = _identity(message)
        if identity is not None:
            positions.setdefault(identity, []).append(index)
    found: list[Violation] = []
    # An output holding more copies of a text than the input did wrote the extra ones itself
    # (a compactor's "Skipped 30 messages." placeholder can repeat an earlier one word for word):
    # the last copies are new messages, not kept ones moved out of order.
    keys = [message_key(message) for message in after]
    extra = Tally(key for key in keys if key in positions)
    for key in extra:
        extra[key] -= len(positions[key])
    written: set[int] = set()
    from_end: Tally[object] = Tally()
    for out_index in range(len(after) - 1, -1, -1):
        key = keys[out_index]
        if extra[key] > 0 and from_end[key] < extra[key]:
            written.add(out_index)
        from_end[key] += 1
    slots: list[object | None] = []
    summaries: list[int] = []
    for out_index, message in enumerate(after):
        key = keys[out_index]
        identity = _identity(message)
        if out_index in written:
            slots.append(None)
            summaries.append(out_index)
        elif key in positions:
            slots.append(key)
        elif identity is not None and identity in positions:
            original = positions[identity][0]
            found.append(
                Violation(
                    "order_preserved",
                    f"the {_label(message)} at output index {out_index} changed its content "
                    f"from input index {original}",
                    _witness(before[original], message),
                    value_diff(before[original].to_json_data(), message.to_json_data()),
                )
            )
            slots.append(identity)
        else:
            slots.append(None)
            summaries.append(out_index)
    if len(summaries) > 1:
        found.append(
            Violation(
                "order_preserved",
                f"{len(summaries)} output messages (indices "
                f"{', '.join(str(i) for i in summaries)}) are not in the input; a summary must "
                "replace one span with one message",
                _witness(*(after[i] for i in summaries)),
            )
        )
    split = summaries[0] if summaries else len(after)
    matcher = _Matcher(positions)
    matched: dict[int, int] = {}
    # Messages before the summary match leftmost, those after it rightmost, so that repeated
    # texts ("Done.") leave the widest span to the summary.
    lowest, lowest_out = -1, -1
    for out_index in range(split):
        slot = slots[out_index]
        assert slot is not None
        chosen = matcher.first_above(slot, lowest)
        if chosen is None:
            found.append(_moved(before, after, out_index, slot, positions, lowest_out, lowest))
            continue
        matched[out_index] = lowest = chosen
        lowest_out = out_index
    highest, highest_out = len(before), -1
    for out_index in range(len(after) - 1, split, -1):
        slot = slots[out_index]
        if slot is None:
            continue
        chosen = matcher.last_below(slot, highest)
        if chosen is None or chosen <= lowest:
            bound_out, bound = (highest_out, highest) if chosen is None else (lowest_out, lowest)
            found.append(_moved(before, after, out_index, slot, positions, bound_out, bound))
            continue
        matched[out_index] = highest = chosen
        highest_out = out_index
    if len(summaries) == 1 and not found:
        found.extend(_span_violations(before, after, split, matched, lowest, highest))
    exercised = len(matched) >= 2 or (bool(summaries) and bool(matched))
    return Finding("order_preserved", exercised, tuple(found))


def _moved(
    before: Messages,
    after: Messages,
    out_index: int,
    slot: object,
    positions: dict[object, list[int]],
    bound_out: int,
    bound: int,
) -> Violation:
    """A kept message that cannot sit where it does without reordering or repeating the input."""
    message = after[out_index]
    original = positions[slot][0]
    beside = (
        f", on the wrong side of the {_label(after[bound_out])} at output index {bound_out} "
        f"(input index {bound})"
        if 0 <= bound_out < len(after) and bound_out != out_index
        else ""
    )
    return Violation(
        "order_preserved",
        f"the {_label(message)} at output index {out_index} is out of its input order or "
        f"repeated; it was at input index {original}{beside}",
        _witness(message, after[bound_out] if beside else None),
    )


def _span_violations(
    before: Messages,
    after: Messages,
    summary: int,
    matched: dict[int, int],
    lowest: int,
    highest: int,
) -> list[Violation]:
    """Whether the single summary replaces one contiguous span, in that span's place."""
    kept = set(matched.values())
    dropped = [index for index in range(len(before)) if index not in kept]
    if not dropped:
        return []
    start, end = dropped[0], dropped[-1]
    if end - start + 1 == len(dropped) and lowest < start and highest > end:
        return []
    inside = next(((o, i) for o, i in matched.items() if start < i < end), None)
    if inside is not None:
        out_index, in_index = inside
        because = (
            f"the summary at output index {summary} replaces input messages {start}..{end}, "
            f"which are not contiguous: the {_label(after[out_index])} at input index {in_index} "
            f"inside them is kept at output index {out_index}"
        )
        return [
            Violation(
                "order_preserved",
                because,
                _witness(before[start], after[out_index], after[summary], before[end]),
            )
        ]
    because = (
        f"the summary at output index {summary} does not sit where the input messages "
        f"{start}..{end} it replaces were"
    )
    return [Violation("order_preserved", because, _witness(before[start], after[summary]))]


@invariant(
    "messages",
    "facts_preserved",
    "every must-keep identifier in the input appears verbatim in the output",
)
def facts_preserved(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Changed file paths, pending step ids and other must-keep identifiers survive."""
    in_corpus, out_corpus = _corpus(before), _corpus(after)
    present = [ident for ident in dict.fromkeys(facts.must_keep) if ident and ident in in_corpus]
    found: list[Violation] = []
    for ident in present:
        if ident in out_corpus:
            continue
        at = _first_containing(before, ident)
        found.append(
            Violation(
                "facts_preserved",
                f"must-keep identifier {ident!r} (first at input index {at}) appears nowhere "
                "in the output",
                _witness(before[at] if at is not None else None),
            )
        )
    return Finding("facts_preserved", bool(present), tuple(found))


@invariant("messages", "non_empty", "a non-empty input compacts to a non-empty output")
def non_empty(before: Messages, after: Messages, facts: Facts) -> Finding:
    """Compaction never returns nothing."""
    del facts
    if not before:
        return Finding("non_empty", False)
    if after:
        return Finding("non_empty", True)
    violation = Violation(
        "non_empty",
        f"the output is empty although the input had {len(before)} messages, the last a "
        f"{_label(before[-1])} at index {len(before) - 1}",
        _witness(before[-1]),
    )
    return Finding("non_empty", True, (violation,))


@invariant("messages", "user_turn_present", "an input with a user message keeps at least one")
def user_turn_present(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The model still sees something the user said."""
    del facts
    users = [index for index, message in enumerate(before) if isinstance(message, UserMessage)]
    if not users:
        return Finding("user_turn_present", False)
    if any(isinstance(message, UserMessage) for message in after):
        return Finding("user_turn_present", True)
    violation = Violation(
        "user_turn_present",
        f"no user message remains in the {len(after)} output messages; the input had "
        f"{len(users)}, the first at index {users[0]}",
        _witness(before[users[0]]),
    )
    return Finding("user_turn_present", True, (violation,))


@invariant(
    "messages",
    "budget_respected",
    "the output fits the declared budget under its counter (approx_tokens is chars / 4)",
    requires_budget=True,
    requires_change=False,
)
def budget_respected(before: Messages, after: Messages, facts: Facts) -> Finding:
    """The output is no larger than the caller's declared budget."""
    del before
    budget = facts.budget
    if budget is None:
        return Finding("budget_respected", False)
    size = message_size(after, budget.counter)
    if size <= budget.limit:
        return Finding("budget_respected", True)
    largest = max(range(len(after)), key=lambda j: message_chars(after[j]), default=None)
    biggest = (
        f"; its largest message is the {_label(after[largest])} at output index {largest}"
        if largest is not None
        else ""
    )
    violation = Violation(
        "budget_respected",
        f"the output measures {size} {budget.counter} against a budget of {budget.limit}" + biggest,
        _witness(*after),
        value_diff(budget.limit, size),
    )
    return Finding("budget_respected", True, (violation,))


@invariant(
    "messages",
    "progress",
    "an input over the declared budget compacts to a smaller output under the budget's counter",
    requires_budget=True,
    requires_change=False,
)
def progress(before: Messages, after: Messages, facts: Facts) -> Finding:
    """A compactor handed more than the budget makes the history smaller, so it cannot loop."""
    budget = facts.budget
    if budget is None:
        return Finding("progress", False)
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
