"""langmem's ``summarize_messages`` as the target ``langmem:summarize_messages``.

The model is ``EchoChatModel`` (it repeats its whole prompt), or the run's model (``--model``)
as a LangChain chat model, langmem building its own prompts either way; with the echo the
summary holds everything the component chose to summarise. The adapter is stateless: each call
starts without a ``RunningSummary``, as a fresh agent would; a summary from an earlier round is
an ordinary message of the next round's input.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``), sizes in
LangChain's approximate tokens (``count_tokens_approximately``, offline):

- ``max_tokens``: 25 %, 50 % or 75 % of the history's size, never below what the newest message
  and a leading system message need; a declared ``--budget`` replaces it (and the counter).
- ``max_tokens_before_summary``: none (then ``max_tokens``) or 25 % or 50 % of the history.
- ``max_summary_tokens``: 10 %, 25 % or 50 % of ``max_tokens`` (at least 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately
from langmem.short_term import summarize_messages  # type: ignore[import-untyped]

from compactcheck.adapters.adapter import (
    Messages,
    MessagesAdapter,
    Parameters,
    budget_measure,
)
from compactcheck.adapters.convert_langchain import from_langchain, to_langchain
from compactcheck.adapters.echo_model import EchoChatModel
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.langchain_chat import as_chat_model

FRACTIONS = (0.25, 0.5, 0.75)

Counter = Callable[[list[BaseMessage]], int]


class SummarizeMessages(MessagesAdapter):
    """``summarize_messages`` with an echo model and settings drawn from the history."""

    package = "langmem"

    def _counter(self) -> Counter:
        if self.budget is None:
            return count_tokens_approximately
        measure = budget_measure(self.budget)
        return lambda messages: measure(from_langchain(messages))

    def parameters(self, messages: Messages) -> Parameters:
        """Token limits for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        counter = self._counter()
        converted = to_langchain(messages)
        size = counter(converted)
        if self.budget is not None:
            draw.fixed("token_counter", f"budget:{self.budget.counter}")
            limit = draw.fixed("max_tokens", self.budget.limit)
        else:
            draw.fixed("token_counter", "approximate")
            needed = converted[-1:]
            if len(converted) > 1 and converted[0].type == "system":
                needed = [converted[0], *needed]
            limit = draw.share("max_tokens", size, FRACTIONS, floor=counter(needed))
        if draw.flag("max_tokens_before_summary_set"):
            draw.share("max_tokens_before_summary", size, (0.25, 0.5))
        else:
            draw.fixed("max_tokens_before_summary", None)
        draw.share("max_summary_tokens", limit, (0.1, 0.25, 0.5))
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Summarise with exactly those settings."""
        before = parameters.get("max_tokens_before_summary")
        result = summarize_messages(
            to_langchain(messages),
            running_summary=None,
            model=EchoChatModel() if self.model is None else as_chat_model(self.model),
            max_tokens=cast(int, parameters["max_tokens"]),
            max_tokens_before_summary=cast(int, before) if before is not None else None,
            max_summary_tokens=cast(int, parameters["max_summary_tokens"]),
            token_counter=self._counter(),
        )
        return from_langchain(result.messages)


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {"langmem:summarize_messages": SummarizeMessages}
