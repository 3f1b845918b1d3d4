"""Messages told apart by their exact type, and keys kept by identity, read as before.

The reading of a message (its key, its call ids, its searchable text) tells the four parsed
message classes apart by type and keeps each message's key while it is alive; these tests hold
it to the reading by ``isinstance`` that asks nothing of the type and keeps nothing, for
messages of the parsed classes and of subclasses of them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.laws.messages import reading
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    FunctionCall,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)


class _MyUser(UserMessage):
    """A user message of a class of the caller's own."""


class _MyAssistant(AssistantMessage):
    """An assistant message of a class of the caller's own."""


class _MyTool(ToolMessage):
    """A tool result of a class of the caller's own."""


_TEXT = st.sampled_from(["", "Never push to main", "wrote app.py", "x" * 50])
_CONTENT = _TEXT | st.lists(_TEXT.map(lambda text: TextPart(text=text)), max_size=2).map(tuple)
_CALLS = st.lists(
    st.builds(
        ToolCall,
        id=st.sampled_from(["call_1", "call_2", "call_3"]),
        function=st.builds(FunctionCall, name=st.sampled_from(["grep", "edit"]), arguments=_TEXT),
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda call: call.id,
).map(tuple)
_NAME = st.none() | st.sampled_from(["ann", "bot"])
_MESSAGES: st.SearchStrategy[ChatMessage] = st.one_of(
    st.builds(SystemMessage, content=_CONTENT, name=_NAME),
    st.builds(UserMessage, content=_CONTENT, name=_NAME),
    st.builds(_MyUser, content=_CONTENT, name=_NAME),
    st.builds(AssistantMessage, content=_CONTENT, name=_NAME),
    st.builds(AssistantMessage, content=st.none() | _CONTENT, tool_calls=_CALLS, name=_NAME),
    st.builds(_MyAssistant, content=st.none() | _CONTENT, tool_calls=_CALLS, name=_NAME),
    st.builds(_MyAssistant, content=_CONTENT, name=_NAME),
    st.builds(ToolMessage, tool_call_id=st.sampled_from(["call_1", "c9"]), content=_CONTENT),
    st.builds(_MyTool, tool_call_id=st.sampled_from(["call_1", "c9"]), content=_CONTENT),
)


def _plain_call_ids(message: ChatMessage) -> tuple[str, ...]:
    if isinstance(message, AssistantMessage) and message.tool_calls:
        return tuple(call.id for call in message.tool_calls)
    return ()


def _plain_searchable_text(message: ChatMessage) -> str:
    # Every part joined, with no shortcut for a plain message and nothing kept.
    return "\x00".join(reading.searchable_parts(message))


@settings(max_examples=500)
@given(st.lists(_MESSAGES, min_size=1, max_size=6))
def test_messages_read_by_type_as_by_isinstance(messages: list[ChatMessage]) -> None:
    # Twice: the second key of each message comes from what the first kept.
    for message in [*messages, *messages]:
        assert reading.message_key(message) == reading._key_of(message)
        assert reading.call_ids(message) == _plain_call_ids(message)
        assert reading.searchable_text(message) == _plain_searchable_text(message)


def test_kept_keys_stay_within_their_bound() -> None:
    reading._KEYS.clear()
    reading._key_chars = 0
    big = UserMessage(content="y" * (reading._KEY_CHARS_KEPT // 2 + 1))
    other = UserMessage(content="z" * (reading._KEY_CHARS_KEPT // 2 + 1))
    assert reading.message_key(big) == reading._key_of(big)
    assert reading.message_key(other) == reading._key_of(other)
    # The second did not fit beside the first: the kept keys were emptied first.
    assert list(reading._KEYS) == [id(other)]
    assert reading._key_chars <= reading._KEY_CHARS_KEPT
