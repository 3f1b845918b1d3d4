"""The messages-view laws: what a compacted OpenAI chat message list must keep.

Every checker takes the parsed input and output lists and the run's facts, and is linear in the
number of messages: lookups go through dicts keyed by message or call id, never through a scan
of one list per element of the other. The measures the laws read a list by are exported too,
since compactors and generators measure by the same ones.
"""

from __future__ import annotations

from invariants.laws.messages import content, order, pairing, size
from invariants.laws.messages.reading import (
    MessageKey,
    Messages,
    MessagesLaw,
    call_ids,
    message_key,
    searchable_text,
)
from invariants.laws.messages.size import message_chars, message_size

# Catalogue order: reports and listings show the laws in this order.
LAWS: tuple[MessagesLaw, ...] = (
    pairing.tool_pairing,
    content.goal_preserved,
    content.constraints_preserved,
    order.recent_tail_preserved,
    order.order_preserved,
    content.facts_preserved,
    content.non_empty,
    content.user_turn_present,
    size.budget_respected,
    size.progress,
)

__all__ = [
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
