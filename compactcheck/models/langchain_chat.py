"""A Model as a LangChain chat model, for components that take ``model=`` a chat model.

The component builds its own prompt and calls ``invoke``; the prompt arrives here as LangChain
messages and leaves as a ModelRequest, so that it is metered, recorded and replayed like any
other.
"""

from __future__ import annotations

from typing import Any

from langchain_core.exceptions import ModelError as LangChainModelError
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from compactcheck.models.model import Model, ModelRefusedError
from compactcheck.models.request import ModelRequest, Role, Turn


def turn_text(message: BaseMessage) -> str:
    """A LangChain message's text, with its tool calls or the call it answers."""
    lines: list[str] = [message.text]
    if isinstance(message, AIMessage):
        lines += [f"call {c['id']}: {c['name']}({c['args']})" for c in message.tool_calls]
    if isinstance(message, ToolMessage):
        lines.append(f"result of {message.tool_call_id}")
    return "\n".join(line for line in lines if line)


def request_of(messages: list[BaseMessage], options: dict[str, Any]) -> ModelRequest:
    """LangChain messages (and the call's options) as a request."""
    system = "\n".join(m.text for m in messages if m.type == "system")
    roles: dict[str, Role] = {"ai": "assistant", "tool": "tool"}
    turns = tuple(
        Turn(role=roles.get(m.type, "user"), text=turn_text(m))
        for m in messages
        if m.type != "system"
    )
    max_tokens = options.get("max_tokens")
    temperature = options.get("temperature")
    return ModelRequest(
        system=system,
        turns=turns,
        max_tokens=max_tokens if isinstance(max_tokens, int) else None,
        temperature=float(temperature) if isinstance(temperature, int | float) else None,
    )


class RefusedCallError(LangChainModelError):
    """A refused call in LangChain's terms: not retryable, so that a component's retry policy
    does not ask (and wait) again for what the cap or offline mode will refuse every time."""

    is_retryable = False


class SlotChatModel(BaseChatModel):
    """A LangChain chat model answered by a compactcheck Model."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Any
    """The Model that answers (typed loosely: pydantic cannot check a Protocol)."""

    @property
    def _llm_type(self) -> str:
        return "compactcheck-model"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        answering: Model = self.model
        try:
            text = answering.answer(request_of(messages, kwargs))
        except ModelRefusedError as refused:
            raise RefusedCallError(str(refused)) from refused
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def as_chat_model(model: Model) -> SlotChatModel:
    """``model`` as a LangChain chat model."""
    return SlotChatModel(model=model)
