"""OpenAI chat dicts survive a trip through AutoGen messages unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("autogen_core", reason="needs the 'autogen' extra")

from compactcheck.adapters.convert_autogen import from_autogen, to_autogen


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_autogen(to_autogen(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_autogen(to_autogen([message])) == [message]


def test_consecutive_results_travel_as_one_message() -> None:
    calls: list[dict[str, Any]] = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for i in ("a", "b")
    ]
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
    ]
    assert len(to_autogen(messages)) == 2


def test_system_text_parts_are_refused() -> None:
    with pytest.raises(ValueError, match="string"):
        to_autogen([{"role": "system", "content": [{"type": "text", "text": "x"}]}])
