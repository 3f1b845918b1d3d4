"""The adapters size a history exactly as the budget law does."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.adapters.adapter import budget_measure
from compactcheck.invariants import Budget, parse_messages
from compactcheck.invariants.facts import Counter
from compactcheck.invariants.laws.messages import message_size

COUNTERS: tuple[Counter, ...] = ("messages", "characters", "approx_tokens")

# Text parts and tool call arguments: where a hand-written count most easily drifts from the law's.
HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "fix"}, {"type": "text", "text": "it"}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
]


@pytest.mark.parametrize("counter", COUNTERS)
def test_budget_measure_is_the_budget_laws_own_count(counter: Counter) -> None:
    measure = budget_measure(Budget(limit=1, counter=counter))
    assert measure(HISTORY) == message_size(parse_messages(HISTORY), counter)
