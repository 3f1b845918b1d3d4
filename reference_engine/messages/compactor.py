"""The reference message compactor: head kept, one span summarised, a safe recent tail kept."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.facts import Budget
from compactcheck.invariants.laws.messages import message_chars
from compactcheck.invariants.messages import (
    ChatMessage,
    SystemMessage,
    UserMessage,
    dump_messages,
    parse_messages,
)
from compactcheck.reference_engine.messages.cut import safe_cuts
from compactcheck.reference_engine.messages.summary import SUMMARY_HEADER, summarise, summary_lines

DEFAULT_MAX_MESSAGES = 16


def head_end(messages: Sequence[ChatMessage], safe: Sequence[bool]) -> int:
    """Where the kept head ends: after every system message and the first user message.

    Keeping every system message in the head means the summarised span never holds one, so
    the instructions are never demoted; the head then stretches to the next safe cut.
    """
    end = 0
    seen_user = False
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            end = index + 1
        elif isinstance(message, UserMessage) and not seen_user:
            seen_user = True
            end = max(end, index + 1)
    while not safe[end]:
        end += 1
    return end


@dataclass(frozen=True)
class _Sizes:
    """Prefix sums that price any choice of tail in constant time."""

    chars: list[int]
    summary_chars: list[int]

    @classmethod
    def of(cls, messages: Sequence[ChatMessage]) -> _Sizes:
        chars, summary_chars = [0], [0]
        for message in messages:
            chars.append(chars[-1] + message_chars(message))
            lines = summary_lines(message)
            summary_chars.append(summary_chars[-1] + sum(len(line) + 1 for line in lines))
        return cls(chars, summary_chars)

    def output_chars(self, head: int, tail: int) -> int:
        """Characters of head + summary of head..tail + tail (no summary when tail == head)."""
        total = self.chars[head] + self.chars[-1] - self.chars[tail]
        if tail > head:
            header = SUMMARY_HEADER.format(count=tail - head)
            total += len(header) + self.summary_chars[tail] - self.summary_chars[head]
        return total


@dataclass(frozen=True)
class ReferenceMessages:
    """A deterministic message compactor that keeps every messages-view law.

    It keeps the head (system messages and the first user message), replaces one contiguous
    middle span by a single summary, and keeps the longest recent tail that starts at a safe
    cut and fits ``max_messages`` and the optional ``budget``. When nothing fits it returns the
    smallest output it can make without breaking a law.
    """

    max_messages: int = DEFAULT_MAX_MESSAGES
    budget: Budget | None = None

    def __post_init__(self) -> None:
        if self.max_messages < 1:
            raise ValueError(
                f"max_messages must be at least 1, got {self.max_messages}; pass the number "
                "of messages the compacted list may hold"
            )

    def __call__(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Compact OpenAI chat dicts into new OpenAI chat dicts (the input is left alone)."""
        return dump_messages(self.compact(parse_messages(messages)))

    def compact(self, messages: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
        """Compact parsed messages."""
        return compact_messages(messages, self.max_messages, self.budget)


Summariser = Callable[[Sequence[ChatMessage]], ChatMessage]


def compact_messages(
    messages: Sequence[ChatMessage],
    max_messages: int,
    budget: Budget | None = None,
    *,
    safe: Sequence[bool] | None = None,
    head: int | None = None,
    summariser: Summariser = summarise,
) -> tuple[ChatMessage, ...]:
    """Keep ``messages[:head]``, summarise one span, keep the longest tail that fits.

    ``safe`` (the cuts allowed), ``head`` and ``summariser`` default to the reference's own
    choices; the mutants pass broken ones, so that each differs from the reference in its bug
    alone. Sizes are priced with the reference summary's lines.
    """
    if not messages:
        return ()
    safe = safe_cuts(messages) if safe is None else safe
    head = head_end(messages, safe) if head is None else head
    last = len(messages) - 1
    if head > last:
        return tuple(messages)
    # The tail always holds the last message; a tail start equal to the head means no cut.
    starts = [head, *(p for p in range(head + 1, last + 1) if safe[p])]
    tail = _choose(starts, head, messages, max_messages, budget)
    if tail == head:
        return tuple(messages)
    return (*messages[:head], summariser(messages[head:tail]), *messages[tail:])


def _choose(
    starts: list[int],
    head: int,
    messages: Sequence[ChatMessage],
    max_messages: int,
    budget: Budget | None,
) -> int:
    """The tail start: the longest tail that fits, else the smallest output."""
    total = len(messages)
    # Sizes are priced only for a budget of characters or tokens: a count of messages, or no
    # budget at all, needs none, and pricing every message is most of a compaction's cost.
    sizes = None if budget is None or budget.counter == "messages" else _Sizes.of(messages)

    def count(tail: int) -> int:
        return total if tail == head else head + 1 + total - tail

    def measure(tail: int) -> int:
        if budget is None or sizes is None:
            return count(tail)
        chars = sizes.output_chars(head, tail)
        return chars if budget.counter == "characters" else math.ceil(chars / 4)

    def within_budget(tail: int) -> bool:
        return budget is None or measure(tail) <= budget.limit

    for tail in starts:
        if count(tail) <= max_messages and within_budget(tail):
            return tail
    for tail in starts:
        if budget is not None and within_budget(tail):
            return tail
    return min(starts, key=lambda tail: (measure(tail), count(tail), tail))


def reference_messages(
    max_messages: int = DEFAULT_MAX_MESSAGES, budget: Budget | None = None
) -> ReferenceMessages:
    """The reference message compactor, as a callable on OpenAI chat dicts."""
    return ReferenceMessages(max_messages=max_messages, budget=budget)
