"""LangChain's ``trim_messages`` (langchain-core) as the target ``langchain:trim_messages``.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- ``token_counter``: ``"messages"`` (``len``, one per message) or ``"approximate"``
  (LangChain's offline character estimate); a declared ``--budget`` replaces both with the
  budget law's own counter and limit.
- ``max_tokens``: 25 %, 50 % or 75 % of the history's size under that counter, but never less
  than the newest message needs (with the leading system message when ``include_system``): a
  limit that nothing fits would make an empty answer the only honest one.
- ``start_on``: none or ``"human"``.
- fixed to what LangChain's docstring recommends for chat histories: ``strategy="last"``,
  ``include_system=True``, ``end_on=None``. The other values drop, by their documented
  meaning, what our laws keep (``"first"`` the newest message, ``include_system=False`` the
  system prompt, ``end_on`` the trailing turns), so they would only report what was asked for.
- ``allow_partial`` is always false: a partial message is an edit the caller asked for, which
  the order law would report as a changed message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, cast

from langchain_core.messages import BaseMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from compactcheck.adapters.adapter import (
    Messages,
    MessagesAdapter,
    Parameters,
    budget_measure,
)
from compactcheck.adapters.convert_langchain import from_langchain, to_langchain
from compactcheck.adapters.parameters import ParameterDraw

Counter = Callable[[list[BaseMessage]], int]

FRACTIONS = (0.25, 0.5, 0.75)


def _counter(name: str, measure: Callable[[Messages], int] | None) -> Counter:
    if measure is not None:
        return lambda messages: measure(from_langchain(messages))
    if name == "messages":
        return len
    return count_tokens_approximately


class TrimMessages(MessagesAdapter):
    """``trim_messages`` on the history, with its settings drawn from the history."""

    package = "langchain-core"

    def parameters(self, messages: Messages) -> Parameters:
        """Counter, size limit, strategy and boundary flags for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        draw.fixed("strategy", "last")
        draw.fixed("include_system", True)
        draw.fixed("end_on", None)
        draw.choice("start_on", (None, "human"))
        if self.budget is not None:
            draw.fixed("token_counter", f"budget:{self.budget.counter}")
            draw.fixed("max_tokens", self.budget.limit)
        else:
            counter = _counter(draw.choice("token_counter", ("messages", "approximate")), None)
            converted = to_langchain(messages)
            needed = converted[-1:]
            if converted[:1] and converted[0].type == "system":
                needed = [converted[0], *needed]
            draw.share("max_tokens", counter(converted), FRACTIONS, floor=counter(needed))
        draw.fixed("allow_partial", False)
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Trim with exactly those settings."""
        measure = budget_measure(self.budget) if self.budget is not None else None
        counter = _counter(str(parameters["token_counter"]), measure)
        end_on = cast(Sequence[str] | None, parameters.get("end_on"))
        start_on = cast(Sequence[str] | None, parameters.get("start_on"))
        trimmed = trim_messages(
            to_langchain(messages),
            max_tokens=cast(int, parameters["max_tokens"]),
            token_counter=counter,
            strategy=cast(Literal["first", "last"], parameters["strategy"]),
            allow_partial=False,
            include_system=bool(parameters["include_system"]),
            start_on=start_on,
            end_on=end_on,
        )
        return from_langchain(trimmed)


ADAPTERS = {"langchain:trim_messages": TrimMessages}
