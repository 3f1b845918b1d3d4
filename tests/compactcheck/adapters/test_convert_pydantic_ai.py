"""OpenAI chat dicts survive a trip through pydantic-ai model messages unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("pydantic_ai_harness", reason="needs the 'pydantic-ai' extra")

from compactcheck.adapters.convert_pydantic_ai import (
    from_pydantic_ai,
    to_pydantic_ai,
)


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_pydantic_ai(to_pydantic_ai(messages)) == messages


@pytest.mark.parametrize(
    "message",
    [m for m in variants() if "name" not in m],
    ids=lambda m: str(sorted(m)),
)
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_pydantic_ai(to_pydantic_ai([message])) == [message]


def test_names_are_refused() -> None:
    with pytest.raises(ValueError, match="no name"):
        to_pydantic_ai([{"role": "user", "content": "hi", "name": "ada"}])
