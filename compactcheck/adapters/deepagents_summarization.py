"""deepagents' summarization middleware, with ``PatchToolCallsMiddleware`` before it, as
``deepagents:summarization``.

As in a deep agent: ``PatchToolCallsMiddleware.before_agent`` first answers any dangling tool
call in the state; then ``SummarizationMiddleware.wrap_model_call`` gets the ``ModelRequest``
(system prompt apart) and hands the request it would send to the next handler, which records its
messages instead of calling a model: the answer is the system prompt and those messages. The
evicted history goes to deepagents' ``FilesystemBackend`` in a temporary folder (virtual paths),
under a fixed session id so that the path the summary names is the same on every replay. The
summariser echoes every message it is handed (``echo_text``); the profile ``model`` is a local
fake that is never called. Given the run's model (``--model``), it writes the summaries with
deepagents' own prompt.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``), sizes in
LangChain's approximate tokens (``count_tokens_approximately``, the middleware's default):

- ``trigger``: ``("messages", n)`` with n 25 % or 50 % of the message count, or
  ``("tokens", t)`` with t 25 % or 50 % of the history's size (at least 1).
- ``keep``: ``("messages", k)`` with k 25 %, 50 % or 75 % of the message count, or
  ``("tokens", t)`` with t 25 %, 50 % or 75 % of the size.
- ``trim_tokens_to_summarize``: the constructor's default 4000, or None (the
  ``create_summarization_middleware`` default).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, cast

from deepagents.backends.filesystem import FilesystemBackend
from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
from deepagents.middleware.summarization import (
    SUMMARIZATION_SESSION_ID_KEY,
    SummarizationMiddleware,
)
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_langchain import from_langchain, to_langchain
from compactcheck.adapters.echo_model import echo_text
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.langchain_chat import as_chat_model

# The history file's name; deepagents draws a random one per session otherwise.
SESSION = "session_compactcheck"


def _echo_summary(messages: Sequence[BaseMessage]) -> str:
    return echo_text(messages)


class DeepAgentsSummarization(MessagesAdapter):
    """Patch dangling calls, then summarise as deepagents does before a model call."""

    package = "deepagents"

    def parameters(self, messages: Messages) -> Parameters:
        """Trigger, retention and summary trim for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        body = to_langchain(_split(messages)[1])
        tokens = count_tokens_approximately(body)
        unit = draw.choice("trigger_unit", ("messages", "tokens"))
        draw.share("trigger_at", len(body) if unit == "messages" else tokens, (0.25, 0.5))
        unit = draw.choice("keep_unit", ("messages", "tokens"))
        draw.share("keep", len(body) if unit == "messages" else tokens, (0.25, 0.5, 0.75))
        draw.choice("trim_tokens_to_summarize", (4000, None))
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Run both middlewares in an agent's order and answer what the model would be sent."""
        system, body = _split(messages)
        state: dict[str, Any] = {
            "messages": to_langchain(body),
            SUMMARIZATION_SESSION_ID_KEY: SESSION,
        }
        patched = PatchToolCallsMiddleware().before_agent(cast(Any, state), cast(Any, None))
        if patched is not None:
            state["messages"] = [m for m in patched["messages"] if not isinstance(m, RemoveMessage)]
        sent: list[BaseMessage] = []

        def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
            sent.extend(request.messages)
            return ModelResponse(result=[AIMessage("(never sent)")])

        profile = FakeListChatModel(responses=["(the profile model is never called)"])
        with tempfile.TemporaryDirectory() as folder:
            settings: dict[str, Any] = {
                "backend": FilesystemBackend(root_dir=folder, virtual_mode=True),
                "trigger": (parameters["trigger_unit"], parameters["trigger_at"]),
                "keep": (parameters["keep_unit"], parameters["keep"]),
                "token_counter": count_tokens_approximately,
                "trim_tokens_to_summarize": parameters["trim_tokens_to_summarize"],
            }
            if self.model is None:
                middleware = SummarizationMiddleware(profile, summarizer=_echo_summary, **settings)
            else:
                middleware = SummarizationMiddleware(as_chat_model(self.model), **settings)
            request: ModelRequest[Any] = ModelRequest(
                model=profile,
                messages=list(state["messages"]),
                system_message=cast(SystemMessage, to_langchain(system)[0]) if system else None,
                state=cast(Any, state),
            )
            middleware.wrap_model_call(request, handler)
        return [*system, *from_langchain(sent)]


def _split(messages: Messages) -> tuple[Messages, Messages]:
    # A deep agent keeps its system prompt apart from the message state.
    if messages and messages[0]["role"] == "system":
        return messages[:1], messages[1:]
    return [], messages


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    "deepagents:summarization": DeepAgentsSummarization
}
