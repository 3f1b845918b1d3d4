"""OpenAI chat dicts survive a trip through compaction-conformance-kit turns unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("compaction_kit", reason="needs the 'conformance-kit' extra")

from compactcheck.adapters.convert_conformance_kit import (
    MARK,
    from_turns,
    to_turns,
)


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_turns(to_turns(messages)) == messages


@pytest.mark.parametrize(
    "message",
    [*variants(), {"role": "user", "content": MARK + "looks encoded"}],
    ids=lambda m: str(sorted(m)),
)
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_turns(to_turns([message])) == [message]


def test_plain_messages_stay_plain_text() -> None:
    turns = to_turns([{"role": "user", "content": "Goal: ship it"}])
    assert (turns[0].role, turns[0].text) == ("user", "Goal: ship it")
