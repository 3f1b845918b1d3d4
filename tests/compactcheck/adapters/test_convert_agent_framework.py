"""OpenAI chat dicts survive a trip through agent-framework messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("agent_framework", reason="needs the 'agent-framework' extra")

from compactcheck.adapters.convert_agent_framework import (
    from_agent_framework,
    to_agent_framework,
)


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_agent_framework(to_agent_framework(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_agent_framework(to_agent_framework([message])) == [message]


def test_a_list_of_one_text_part_reads_back_as_a_list() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "only"}]}
    assert from_agent_framework(to_agent_framework([message])) == [message]


def test_each_call_gets_fresh_messages() -> None:
    # apply_compaction marks what it is handed: two conversions never share a message.
    history = [{"role": "user", "content": "hi"}]
    first, second = to_agent_framework(history), to_agent_framework(history)
    assert first[0] is not second[0]
    assert first[0].additional_properties is not second[0].additional_properties
