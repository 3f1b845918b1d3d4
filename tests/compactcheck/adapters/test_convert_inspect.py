"""OpenAI chat dicts survive a trip through inspect-ai messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("inspect_ai", reason="needs the 'inspect-ai' extra")

from inspect_ai.model import ChatMessageAssistant

from compactcheck.adapters.convert_inspect import from_inspect, to_inspect


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_inspect(to_inspect(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_inspect(to_inspect([message])) == [message]


def test_arguments_that_are_no_json_object_travel_as_written() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "not json"}}
    message = {"role": "assistant", "tool_calls": [call]}
    converted = to_inspect([message])
    assert isinstance(converted[0], ChatMessageAssistant)
    assert converted[0].tool_calls is not None
    assert converted[0].tool_calls[0].arguments == {}
    assert from_inspect(converted) == [message]
