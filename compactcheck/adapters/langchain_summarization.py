"""LangChain's ``SummarizationMiddleware`` (langchain) as ``langchain:summarization-middleware``.

``before_model`` runs on the agent state ``{"messages": [...]}``; its answer, a
``RemoveMessage(REMOVE_ALL_MESSAGES)`` then the summary and the kept messages, becomes the new
history (no answer: the history stays as it was). The summariser is a function that echoes every
message it is handed (``echo_text``), so the summary holds all that the middleware chose to
summarise; the ``model`` argument, used only for its profile, is a local fake that is never
called. Given the run's model (``--model``), the middleware is handed it as its ``model`` and
builds its own summary prompt, as it does in an agent. As in a LangChain agent, whose system
prompt lives outside the state, a leading system message is held back from the middleware and put
back in front of its answer.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- ``trigger``: ``("messages", n)`` with n 25 % or 50 % of the message count, or
  ``("tokens", t)`` with t 25 % or 50 % of the approximate token count (at least 1).
- ``keep``: ``("messages", k)`` with k 25 %, 50 % or 75 % of the message count, or
  ``("tokens", t)`` with t 25 %, 50 % or 75 % of the approximate token count (at least 1).
- ``token_counter``: LangChain's ``count_tokens_approximately``; ``trim_tokens_to_summarize``
  is the default (4000), which long generated histories exceed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from langchain.agents.middleware.summarization import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, RemoveMessage
from langchain_core.messages.utils import count_tokens_approximately

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_langchain import from_langchain, to_langchain
from compactcheck.adapters.echo_model import echo_text
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.langchain_chat import as_chat_model


def _echo_summary(messages: Sequence[BaseMessage]) -> str:
    return echo_text(messages)


class Summarization(MessagesAdapter):
    """``SummarizationMiddleware.before_model`` with an echo summariser, or the run's model."""

    package = "langchain"

    def parameters(self, messages: Messages) -> Parameters:
        """Trigger and retention for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        body = to_langchain(_without_system(messages)[1])
        tokens = count_tokens_approximately(body)
        unit = draw.choice("trigger_unit", ("messages", "tokens"))
        total = len(body) if unit == "messages" else tokens
        draw.share("trigger_at", total, (0.25, 0.5))
        unit = draw.choice("keep_unit", ("messages", "tokens"))
        total = len(body) if unit == "messages" else tokens
        draw.share("keep", total, (0.25, 0.5, 0.75))
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Run ``before_model`` and apply its state update."""
        system, body = _without_system(messages)
        settings: dict[str, Any] = {
            "trigger": (cast(Any, parameters["trigger_unit"]), cast(int, parameters["trigger_at"])),
            "keep": (cast(Any, parameters["keep_unit"]), cast(int, parameters["keep"])),
            "token_counter": count_tokens_approximately,
        }
        if self.model is None:
            middleware = SummarizationMiddleware(
                model=FakeListChatModel(responses=["(the profile model is never called)"]),
                summarizer=_echo_summary,
                **settings,
            )
        else:
            middleware = SummarizationMiddleware(model=as_chat_model(self.model), **settings)
        state = {"messages": to_langchain(body)}
        update = middleware.before_model(cast(Any, state), cast(Any, None))
        if update is None:
            return messages
        kept = [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
        return [*system, *from_langchain(kept)]


def _without_system(messages: Messages) -> tuple[Messages, Messages]:
    if messages and messages[0]["role"] == "system":
        return messages[:1], messages[1:]
    return [], messages


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "langchain:summarization-middleware": Summarization
}
