"""OpenAI chat dicts survive a trip through LangChain messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("langchain_core", reason="needs the 'langchain' extra")

from compactcheck.adapters.convert_langchain import from_langchain, to_langchain


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_langchain(to_langchain(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_langchain(to_langchain([message])) == [message]
