"""How a message mutant is built: the reference message compactor with one bug, on chat dicts.

The mutants are capped at ``MUTANT_MAX_MESSAGES`` (those that differ say why); the budget
mutants are declared with ``MUTANT_BUDGET``, which the facts must carry when they are judged
(``Mutant.budget``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from compactcheck.invariants.facts import Budget
from compactcheck.invariants.messages import (
    ChatMessage,
    dump_messages,
    parse_messages,
)
from compactcheck.reference_engine.messages import compact_messages
from compactcheck.reference_engine.mutants.mutant import Mutant

MUTANT_MAX_MESSAGES = 6
MUTANT_BUDGET = Budget(limit=60, counter="approx_tokens")

Messages = tuple[ChatMessage, ...]
Backend = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def chat_backend(compact: Callable[[Messages], Sequence[ChatMessage]]) -> Backend:
    """A compactor on OpenAI chat dicts from one on parsed messages."""

    def run(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return dump_messages(list(compact(parse_messages(messages))))

    return run


def reference(messages: Messages) -> Messages:
    """The reference's compaction at the mutants' cap, which most mutants then edit."""
    return compact_messages(messages, MUTANT_MAX_MESSAGES)


def summary_of(before: Messages, after: Messages) -> ChatMessage | None:
    """The message the reference wrote in place of a span: the one not taken from its input."""
    taken = {id(message) for message in before}
    return next((message for message in after if id(message) not in taken), None)


def chat_mutant(
    name: str,
    targets: str,
    description: str,
    compact: Callable[[Messages], Sequence[ChatMessage]],
    max_witness: int,
    budget: Budget | None = None,
    malformed: tuple[str, ...] = (),
) -> Mutant:
    """A messages mutant of chat completions that breaks ``targets``."""
    return Mutant(
        name,
        "messages",
        targets,
        description,
        lambda: chat_backend(compact),
        max_witness,
        budget,
        malformed,
    )
