"""How the messages laws read a message list: identity, wiring, searchable text, names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from compactcheck.invariants.facts import Reading
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.sentences import WIRING
from compactcheck.invariants.tokens import TokenIndex

Messages = Sequence[ChatMessage]
MessagesLaw = Invariant[Messages, Messages]

# A message's identity for "verbatim": role, plain text and wiring. Text parts and a plain string
# with the same text count as the same message, since frameworks convert between the two freely.
MessageKey = tuple[str, str, str | None, tuple[tuple[str, str, str], ...], str | None]

# Keeps an identifier from matching across the boundary of two messages in a joined corpus, and
# parts a message's text from its wiring (which the sentence reading reads as wiring).
_SEPARATOR = WIRING


# The four message classes as parsed. A message of exactly one of them is told by its type:
# ``isinstance`` of a pydantic model that is not of the class asked about goes through the model
# metaclass's check, several times slower; a message of another class (a subclass) is asked.
_PARSED: frozenset[type[ChatMessage]] = frozenset(
    (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
)

# The keys of the messages keyed last, by identity (a message is frozen, and kept here so that
# its id is not reused while it is): a kept message is keyed again at each round that holds it.
# Bounded as ``_TEXTS`` is, by entries and by the characters the keys hold.
_KEYS: dict[int, tuple[ChatMessage, MessageKey]] = {}
_KEYS_KEPT = 8192
_KEY_CHARS_KEPT = 8 * 1024 * 1024
_key_chars = 0


def message_key(message: ChatMessage) -> MessageKey:
    """What two messages must share to be the same message, verbatim."""
    global _key_chars
    known = _KEYS.get(id(message))
    if known is not None and known[0] is message:
        return known[1]
    key = _key_of(message)
    size = len(key[1]) + sum(len(arguments) for _, _, arguments in key[3])
    if len(_KEYS) >= _KEYS_KEPT or _key_chars + size > _KEY_CHARS_KEPT:
        # Emptied rather than trimmed, as ``_TEXTS`` is.
        _KEYS.clear()
        _key_chars = 0
    if size <= _KEY_CHARS_KEPT:
        _KEYS[id(message)] = (message, key)
        _key_chars += size
    return key


def _key_of(message: ChatMessage) -> MessageKey:
    calls: tuple[tuple[str, str, str], ...] = ()
    call_id: str | None = None
    if isinstance(message, AssistantMessage) and message.tool_calls:
        calls = tuple(
            (call.id, call.function.name, call.function.arguments) for call in message.tool_calls
        )
    if isinstance(message, ToolMessage):
        call_id = message.tool_call_id
    name = None if isinstance(message, ToolMessage) else message.name
    return (message.role, content_text(message.content), name, calls, call_id)


def call_ids(message: ChatMessage) -> tuple[str, ...]:
    """The ids of the tool calls an assistant message makes."""
    kind = type(message)
    assistant = kind is AssistantMessage or (
        kind not in _PARSED and isinstance(message, AssistantMessage)
    )
    if assistant and message.tool_calls:  # type: ignore[union-attr]
        return tuple(call.id for call in message.tool_calls)  # type: ignore[union-attr]
    return ()


def searchable_parts(message: ChatMessage) -> list[str]:
    """The texts of a message an identifier can hide in, in order."""
    parts = [content_text(message.content)]
    if isinstance(message, AssistantMessage) and message.tool_calls:
        for call in message.tool_calls:
            parts += [call.id, call.function.name, call.function.arguments]
    if isinstance(message, ToolMessage):
        parts.append(message.tool_call_id)
    return parts


# The searchable texts of the messages read last, by identity (a message is frozen, and kept here
# so that its id is not reused while it is): a round's facts, its input's lookup and the next
# round's input read the very same message objects, and the projection builds most of them once.
# At most ``_TEXTS_KEPT`` of them holding at most ``_CHARS_KEPT`` characters, for a bounded memory:
# a guard in a long-lived agent must not keep its histories alive.
_TEXTS: dict[int, tuple[ChatMessage, str]] = {}
_TEXTS_KEPT = 8192
_CHARS_KEPT = 8 * 1024 * 1024
_kept_chars = 0


def searchable_text(message: ChatMessage) -> str:
    """Everything of a message an identifier can hide in: text, call ids, names, arguments."""
    global _kept_chars
    content = message.content
    if type(content) is str:
        kind = type(message)
        if kind in _PARSED:
            plain = kind is not ToolMessage and (
                kind is not AssistantMessage or not message.tool_calls  # type: ignore[union-attr]
            )
        else:
            plain = isinstance(message, UserMessage | SystemMessage) or (
                isinstance(message, AssistantMessage) and not message.tool_calls
            )
        if plain:
            # Its text alone (most messages): nothing to join, so nothing worth keeping.
            return content
    known = _TEXTS.get(id(message))
    if known is not None and known[0] is message:
        return known[1]
    text = _SEPARATOR.join(searchable_parts(message))
    if len(_TEXTS) >= _TEXTS_KEPT or _kept_chars + len(text) > _CHARS_KEPT:
        # Emptied rather than trimmed: removing the oldest entries one by one makes a dict walk
        # over the holes they leave.
        forget_searchable_texts()
    if len(text) <= _CHARS_KEPT:
        _TEXTS[id(message)] = (message, text)
        _kept_chars += len(text)
    return text


def forget_searchable_texts() -> None:
    """Empty the kept searchable texts: the next reading of any message is a first one."""
    global _kept_chars
    _TEXTS.clear()
    _kept_chars = 0


def corpus(messages: Messages) -> str:
    """The searchable text of a whole list, in which an identifier can be looked up at once."""
    # Each message's text joins its parts with the same separator: this is the join of every
    # part of the list.
    return _SEPARATOR.join([searchable_text(message) for message in messages])


def first_containing(messages: Messages, needle: str) -> int | None:
    """The index of the first message whose searchable text holds ``needle``."""
    for index, message in enumerate(messages):
        if needle in searchable_text(message):
            return index
    return None


def label(message: ChatMessage) -> str:
    """A short name for a message in a sentence: its role, and its call ids where it has any."""
    if isinstance(message, ToolMessage):
        return f"tool result {message.tool_call_id}"
    ids = call_ids(message)
    if ids:
        return f"assistant call {', '.join(ids)}"
    return f"{message.role} message"


class FactLookup:
    """Looks facts up in a message list's searchable text, as ``Facts.reading`` says.

    Verbatim: the fact's exact text occurs. Tokens: it occurs, or one message holds every one of
    its distinctive tokens (``compactcheck.invariants.tokens``), so that a summary may reword it;
    tokens scattered over several messages do not say the fact. Never stricter than verbatim: an
    exact occurrence always counts.
    """

    # The lookups of the last few lists: the laws and the fidelity measures of one compaction
    # read the same two lists, and a list's corpus is the larger part of a lookup's cost.
    _recent: ClassVar[list[FactLookup]] = []

    @classmethod
    def of(cls, messages: Messages, reading: Reading) -> FactLookup:
        """The lookup of ``messages``, built once for a tuple (which cannot change) and reused.

        Only a tuple is reused, and only while it is the very same object: a list could be
        edited between two calls, and an equal tuple is not known to be equal without the
        comparison the reuse is there to save.
        """
        if type(messages) is not tuple:
            return cls(messages, reading)
        for found in cls._recent:
            if found.messages is messages and found.reading == reading:
                return found
        found = cls(messages, reading)
        cls._recent.insert(0, found)
        del cls._recent[4:]
        return found

    def __init__(self, messages: Messages, reading: Reading) -> None:
        self.messages = messages
        self.reading = reading
        self.text = corpus(messages)
        self.tokens = reading == "tokens"
        self._whole: TokenIndex | None = None
        self._each: list[TokenIndex] | None = None
        # Answers of ``holds``: the laws and the measures of one compaction ask about the same
        # facts (the must-keep ones are the changed files and pending steps again), and each
        # question is a search of the whole corpus.
        self._held: dict[str, bool] = {}

    def _indexes(self) -> list[TokenIndex]:
        if self._each is None:
            self._each = [TokenIndex(searchable_text(message)) for message in self.messages]
        return self._each

    def holding(self, fact: str) -> int | None:
        """The index of the first message that says ``fact``; None when none does."""
        at = first_containing(self.messages, fact) if fact in self.text else None
        if at is not None or not self.tokens:
            return at
        return self._holding_tokens(fact)

    def _holding_tokens(self, fact: str) -> int | None:
        """The index of the first message that holds every token of ``fact``; None when none."""
        if self._whole is None:
            self._whole = TokenIndex(self.text)
        # What the whole list does not hold, no message of it holds: most facts stop here.
        if not self._whole.holds(fact):
            return None
        return next((i for i, index in enumerate(self._indexes()) if index.holds(fact)), None)

    def holds(self, fact: str) -> bool:
        """Whether the list still says ``fact``."""
        held = self._held.get(fact)
        if held is None:
            held = self._held[fact] = self.said(fact)
        return held

    def said(self, fact: str) -> bool:
        """Whether the list says ``fact``, read afresh (``holds`` keeps the answers)."""
        # Not in the text verbatim, the fact is looked for by its tokens at once: ``holding``
        # would search the whole text for it a second time first.
        return fact in self.text or (self.tokens and self._holding_tokens(fact) is not None)

    def missing(self, fact: str) -> list[str]:
        """What of ``fact`` is not said: its tokens no single message holds, or the fact itself.

        Read by tokens, the tokens missing from the message that holds most of them.
        """
        if self.holds(fact):
            return []
        if not self.tokens:
            return [fact]
        return min((index.missing(fact) for index in self._indexes()), key=len, default=[fact])
