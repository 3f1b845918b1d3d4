"""OpenAI chat dicts survive a trip through inspect-ai messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories, scenarios
from compactcheck.strategies.messages_view import MessageHistory
from compactcheck.strategies.shapes import CONTENT_FORMS
from tests.compactcheck.adapters.wire import assert_form_held_or_declared, variants

pytest.importorskip("inspect_ai", reason="needs the 'inspect-ai' extra")

from inspect_ai.model import ChatMessageAssistant

from compactcheck.adapters.convert_inspect import UNHELD, from_inspect, to_inspect


@settings(max_examples=60, deadline=None)
@given(message_histories(scenarios(unsent=UNHELD)))
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_inspect(to_inspect(messages)) == messages


@pytest.mark.parametrize("form", CONTENT_FORMS)
def test_every_content_form_is_held_or_declared(form: str) -> None:
    assert_form_held_or_declared(form, to_inspect, from_inspect, UNHELD)


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
