"""LangChain's ``ContextEditingMiddleware`` with ``ClearToolUsesEdit`` as
``langchain:context-editing``.

The middleware edits the request a LangChain agent is about to send: ``wrap_model_call`` gets a
``ModelRequest`` (system prompt apart, as an agent holds it) and hands the edited one to the next
handler, which here records its messages instead of calling a model. Old tool results become the
placeholder ``[cleared]``; with ``clear_tool_inputs`` the arguments of their calls become ``{}``.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``), sizes in
LangChain's approximate tokens (``count_tokens_approximately``, the middleware's default count):

- ``trigger``: 25 % or 50 % of the history's size (so that the edit runs).
- ``keep``: the 3 most recent tool results (the default), 1 or 0.
- ``clear_at_least``: 0 (the default: clear every candidate) or 25 % of the history's size.
- ``clear_tool_inputs``: false (the default) or true.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from langchain.agents.middleware.context_editing import ClearToolUsesEdit, ContextEditingMiddleware
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_langchain import (
    RAW_ARGUMENTS,
    from_langchain,
    to_langchain,
)
from compactcheck.adapters.parameters import ParameterDraw


class ContextEditing(MessagesAdapter):
    """``ContextEditingMiddleware.wrap_model_call`` with one drawn ``ClearToolUsesEdit``."""

    package = "langchain"

    def parameters(self, messages: Messages) -> Parameters:
        """Trigger, retention and clearing settings for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        tokens = count_tokens_approximately(to_langchain(_split(messages)[1]))
        draw.share("trigger", tokens, (0.25, 0.5))
        draw.choice("keep", (3, 1, 0))
        if draw.flag("clear_at_least_set"):
            draw.share("clear_at_least", tokens, (0.25,))
        else:
            draw.fixed("clear_at_least", 0)
        draw.flag("clear_tool_inputs")
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """Run the middleware around a handler that keeps the request it is handed."""
        system, body = _split(messages)
        edit = ClearToolUsesEdit(
            trigger=cast(int, parameters["trigger"]),
            keep=cast(int, parameters["keep"]),
            clear_at_least=cast(int, parameters["clear_at_least"]),
            clear_tool_inputs=bool(parameters["clear_tool_inputs"]),
        )
        middleware: ContextEditingMiddleware[Any, Any] = ContextEditingMiddleware(edits=[edit])
        sent: list[BaseMessage] = []

        def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
            sent.extend(request.messages)
            return ModelResponse(result=[AIMessage("(never sent)")])

        request: ModelRequest[Any] = ModelRequest(
            model=FakeListChatModel(responses=["(never called)"]),
            messages=cast(Any, to_langchain(body)),
            system_message=cast(SystemMessage, to_langchain(system)[0]) if system else None,
        )
        middleware.wrap_model_call(request, handler)
        return [*system, *from_langchain([_without_stale_raw(m) for m in sent])]


def _split(messages: Messages) -> tuple[Messages, Messages]:
    # A LangChain agent keeps its system prompt apart from the message state.
    if messages and messages[0]["role"] == "system":
        return messages[:1], messages[1:]
    return [], messages


def _without_stale_raw(message: BaseMessage) -> BaseMessage:
    """A message whose cleared call arguments no longer print back from the raw string the
    converter kept for them (the middleware set them to ``{}``)."""
    if not isinstance(message, AIMessage):
        return message
    editing = message.response_metadata.get("context_editing", {})
    cleared = set(editing.get("cleared_tool_inputs", ()))
    raw = message.additional_kwargs.get(RAW_ARGUMENTS)
    if not cleared or not raw:
        return message
    kept = {call: text for call, text in raw.items() if call not in cleared}
    extra = {k: v for k, v in message.additional_kwargs.items() if k != RAW_ARGUMENTS}
    if kept:
        extra[RAW_ARGUMENTS] = kept
    return message.model_copy(update={"additional_kwargs": extra})


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {"langchain:context-editing": ContextEditing}
