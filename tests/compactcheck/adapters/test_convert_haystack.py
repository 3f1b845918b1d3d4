"""OpenAI chat dicts survive a trip through Haystack chat messages unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

pytest.importorskip("haystack", reason="needs the 'haystack' extra")

from compactcheck.adapters.convert_haystack import from_haystack, to_haystack


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_haystack(to_haystack(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_haystack(to_haystack([message])) == [message]


def test_a_result_names_the_call_it_answers() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{}"}}
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "3 matches"},
    ]
    result = to_haystack(messages)[1].tool_call_result
    assert result is not None
    assert (result.origin.id, result.origin.tool_name) == ("c1", "grep")


def test_haystack_notes_get_their_marker_back() -> None:
    # A summary and an omission note from an earlier round read as Haystack's own notes again.
    summary = "<conversation_summary>\n[user] Goal: ship it\n</conversation_summary>"
    note = (
        "[3 earlier messages were removed from this conversation to free up context and cannot "
        "be recovered.]"
    )
    converted = to_haystack(
        [{"role": "user", "content": summary}, {"role": "user", "content": note}]
    )
    strategies = [message.meta["context_compaction"]["strategy"] for message in converted]
    assert strategies == ["summarization", "sliding_window"]
    assert not to_haystack([{"role": "user", "content": "Goal: ship it"}])[0].meta
