"""AutoGen's model contexts (autogen-core) as ``autogen:buffered``, ``autogen:head-and-tail``
and ``autogen:token-limited``.

Each history is added message by message (``await add_message``) and read back with
``await get_messages()``, the view the agent sends to its model. Sizes count AutoGen's own
messages, in which a run of consecutive tool results is one message.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- buffered: ``buffer_size`` 25 %, 50 % or 75 % of the AutoGen message count (at least 1); a
  declared ``--budget`` counted in messages is used as is.
- head-and-tail: ``head_size`` 1 to 3, ``tail_size`` 25 %, 50 % or 75 % of the message count
  (at least 1).
- token-limited: ``token_limit`` 25 %, 50 % or 75 % of the history's size, never below what
  the newest message and a leading system message need together; the model client is a local
  stand-in whose ``count_tokens`` is the budget law's own arithmetic (characters / 4, rounded
  up), or a declared budget's counter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, cast

from autogen_core.model_context import (
    BufferedChatCompletionContext,
    ChatCompletionContext,
    HeadAndTailChatCompletionContext,
    TokenLimitedChatCompletionContext,
)
from autogen_core.models import ChatCompletionClient, LLMMessage

from compactcheck.adapters.adapter import (
    Messages,
    MessagesAdapter,
    Parameters,
    chat_size,
)
from compactcheck.adapters.convert_autogen import from_autogen, to_autogen
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.invariants.facts import Counter

FRACTIONS = (0.25, 0.5, 0.75)


class CountingClient:
    """The part of a model client the token-limited context uses, counting offline."""

    def __init__(self, measure: Callable[[Messages], int], limit: int) -> None:
        self.measure = measure
        self.limit = limit

    def count_tokens(self, messages: Sequence[LLMMessage], **_: Any) -> int:
        """The size of AutoGen messages under the chosen counter."""
        return self.measure(from_autogen(messages))

    def remaining_tokens(self, messages: Sequence[LLMMessage], **_: Any) -> int:
        """What is left of the limit."""
        return self.limit - self.count_tokens(messages)


def _read(context: ChatCompletionContext, messages: Messages) -> Messages:
    async def run() -> list[LLMMessage]:
        for message in to_autogen(messages):
            await context.add_message(message)
        return await context.get_messages()

    return from_autogen(asyncio.run(run()))


class _AutogenContext(MessagesAdapter):
    package = "autogen-core"

    def _message_window(self, draw: ParameterDraw, name: str, messages: Messages) -> int:
        if self.budget is not None and self.budget.counter == "messages":
            return draw.fixed(name, self.budget.limit)
        return draw.share(name, len(to_autogen(messages)), FRACTIONS)


class Buffered(_AutogenContext):
    """``BufferedChatCompletionContext``: the last ``buffer_size`` messages."""

    def parameters(self, messages: Messages) -> Parameters:
        """The buffer size for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        self._message_window(draw, "buffer_size", messages)
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The buffered view of the history."""
        size = cast(int, parameters["buffer_size"])
        return _read(BufferedChatCompletionContext(buffer_size=size), messages)


class HeadAndTail(_AutogenContext):
    """``HeadAndTailChatCompletionContext``: the first messages, a placeholder, the last ones."""

    def parameters(self, messages: Messages) -> Parameters:
        """Head and tail sizes for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.integer("head_size", 1, 3)
        self._message_window(draw, "tail_size", messages)
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The head-and-tail view of the history."""
        context = HeadAndTailChatCompletionContext(
            head_size=cast(int, parameters["head_size"]),
            tail_size=cast(int, parameters["tail_size"]),
        )
        return _read(context, messages)


class TokenLimited(_AutogenContext):
    """``TokenLimitedChatCompletionContext`` with an offline counting client."""

    def _counter(self) -> Counter:
        # Without a declared budget, the budget law's default counter.
        return self.budget.counter if self.budget is not None else "approx_tokens"

    def _measure(self) -> Callable[[Messages], int]:
        return partial(chat_size, counter=self._counter())

    def parameters(self, messages: Messages) -> Parameters:
        """The token limit for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        measure = self._measure()
        draw.fixed("counter", self._counter())
        if self.budget is not None:
            draw.fixed("token_limit", self.budget.limit)
        else:
            needed = messages[-1:]
            if len(messages) > 1 and messages[0]["role"] == "system":
                needed = [messages[0], *needed]
            draw.share("token_limit", measure(messages), FRACTIONS, floor=measure(needed))
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The token-limited view of the history."""
        limit = cast(int, parameters["token_limit"])
        client = cast(ChatCompletionClient, CountingClient(self._measure(), limit))
        return _read(TokenLimitedChatCompletionContext(client, token_limit=limit), messages)


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "autogen:buffered": Buffered,
    "autogen:head-and-tail": HeadAndTail,
    "autogen:token-limited": TokenLimited,
}
