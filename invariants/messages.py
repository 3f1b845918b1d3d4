"""The messages view: OpenAI chat messages, with tool calls and their results."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator


class _ChatModel(BaseModel):
    """Chat wire models keep OpenAI's own snake_case names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json_data(self) -> dict[str, Any]:
        """The message as an OpenAI chat dict, absent optionals left out."""
        return self.model_dump(mode="json", exclude_none=True)


class TextPart(_ChatModel):
    """A text part of a multi-part content."""

    type: Literal["text"] = "text"
    text: str


Content = str | tuple[TextPart, ...]


def content_text(content: Content | None) -> str:
    """The plain text of a content, parts joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content)


class FunctionCall(_ChatModel):
    """The function a tool call invokes; arguments are a JSON string, as OpenAI sends them."""

    name: str = Field(min_length=1)
    arguments: str


class ToolCall(_ChatModel):
    """One tool call of an assistant message."""

    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: FunctionCall


class SystemMessage(_ChatModel):
    """Instructions from the developer of the agent."""

    role: Literal["system"] = "system"
    content: Content
    name: str | None = None


class UserMessage(_ChatModel):
    """A message from the user."""

    role: Literal["user"] = "user"
    content: Content
    name: str | None = None


class AssistantMessage(_ChatModel):
    """A model turn: text, tool calls, or both."""

    role: Literal["assistant"] = "assistant"
    content: Content | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _has_content_or_calls(self) -> Self:
        if self.content is None and not self.tool_calls:
            raise ValueError("an assistant message needs content or tool_calls")
        if self.tool_calls is not None:
            ids = [call.id for call in self.tool_calls]
            if len(set(ids)) != len(ids):
                raise ValueError(f"an assistant message repeats a tool call id: {ids}")
        return self


class ToolMessage(_ChatModel):
    """The result of one tool call, tied to it by ``tool_call_id``."""

    role: Literal["tool"] = "tool"
    tool_call_id: str = Field(min_length=1)
    content: Content


ChatMessage = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")
]

CHAT_MESSAGE: TypeAdapter[ChatMessage] = TypeAdapter(ChatMessage)
CHAT_MESSAGES: TypeAdapter[tuple[ChatMessage, ...]] = TypeAdapter(tuple[ChatMessage, ...])


def parse_messages(data: object) -> tuple[ChatMessage, ...]:
    """Validate a list of OpenAI chat dicts."""
    return CHAT_MESSAGES.validate_python(data)


def dump_messages(messages: tuple[ChatMessage, ...] | list[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for a message list, each as its ``to_json_data`` gives it."""
    # One call of the list's serialiser instead of one per message: half the time. It is handed
    # a tuple, the type it serialises (a list would warn and take a slower path).
    dumped: list[dict[str, Any]] = CHAT_MESSAGES.dump_python(
        tuple(messages), mode="json", exclude_none=True
    )
    return dumped
