"""The messages-view laws: what a compacted OpenAI chat message list must keep.

Every checker takes the parsed input and output lists and the run's facts, and is linear in the
number of messages: lookups go through dicts keyed by message or call id, never through a scan
of one list per element of the other. The measures the laws read a list by are exported too,
since compactors and generators measure by the same ones.
"""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages import (
    anthropic,
    content,
    gemini,
    order,
    pairing,
    responses,
    size,
)
from compactcheck.invariants.laws.messages.reading import (
    MessageKey,
    Messages,
    MessagesLaw,
    call_ids,
    message_key,
    searchable_text,
)
from compactcheck.invariants.laws.messages.size import message_chars, message_size
from compactcheck.invariants.laws.messages.structure import Rule

# Catalogue order: reports and listings show the laws in this order.
LAWS: tuple[MessagesLaw, ...] = (
    pairing.tool_pairing,
    content.goal_preserved,
    content.constraints_preserved,
    order.recent_tail_preserved,
    order.order_preserved,
    order.kept_messages_verbatim,
    order.tool_results_unpruned,
    content.facts_preserved,
    content.non_empty,
    content.user_turn_present,
    content.user_turn_first,
    size.budget_respected,
    size.progress,
    content.constraints_not_weakened,
    content.no_invented_constraints,
)

# The structural laws of each provider format: each reads its own parsed request and judges
# only histories of its format (Invariant.formats); they come after the laws of every format.
FORMAT_LAWS: tuple[Invariant, ...] = (*anthropic.LAWS, *responses.LAWS, *gemini.LAWS)
# The single-request rules of each format, which also tell whether an input is one its
# provider accepts.
FORMAT_RULES: dict[str, tuple[Rule[Any], ...]] = {
    "anthropic": anthropic.RULES,
    "openai-responses": responses.RULES,
    "gemini": gemini.RULES,
}

__all__ = [
    "FORMAT_LAWS",
    "FORMAT_RULES",
    "LAWS",
    "MessageKey",
    "Messages",
    "MessagesLaw",
    "call_ids",
    "message_chars",
    "message_key",
    "message_size",
    "searchable_text",
]
