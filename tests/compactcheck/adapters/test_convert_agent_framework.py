"""OpenAI chat dicts survive a trip through agent-framework messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories, scenarios
from compactcheck.strategies.messages_view import MessageHistory
from compactcheck.strategies.shapes import CONTENT_FORMS
from tests.compactcheck.adapters.wire import assert_form_held_or_declared, variants

pytest.importorskip("agent_framework", reason="needs the 'agent-framework' extra")

from compactcheck.adapters.convert_agent_framework import (
    UNHELD,
    from_agent_framework,
    to_agent_framework,
)


@settings(max_examples=60, deadline=None)
@given(message_histories(scenarios(unsent=UNHELD)))
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_agent_framework(to_agent_framework(messages)) == messages


@pytest.mark.parametrize("form", CONTENT_FORMS)
def test_every_content_form_is_held_or_declared(form: str) -> None:
    assert_form_held_or_declared(form, to_agent_framework, from_agent_framework, UNHELD)


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
