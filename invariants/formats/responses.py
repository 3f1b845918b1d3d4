"""The OpenAI Responses API input as a compactor sees it: ``instructions`` and the item list.

Items are read permissively (a message's role is any string, an unknown item type is carried)
so that a compactor's answer which breaks a provider rule still parses, and the law that
mirrors the rule can name it instead of a parse error.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag


class _Wire(BaseModel):
    """Provider JSON as OpenAI sends it; unknown fields are carried."""

    model_config = ConfigDict(frozen=True, extra="allow")

    def to_json_data(self) -> dict[str, Any]:
        """The object as it came: only the keys that were given."""
        return self.model_dump(mode="json", exclude_unset=True)


class ContentPart(_Wire):
    """A part of a message's content: ``input_text``, ``output_text``, ``input_image``, ..."""

    type: str
    text: str | None = None


class MessageItem(_Wire):
    """A message; ``type`` may be left out of an input message (the "easy" input form)."""

    type: Literal["message"] | None = None
    role: str
    content: str | tuple[ContentPart, ...]
    id: str | None = None


class FunctionCallItem(_Wire):
    """A function call the model made; ``call_id`` pairs it with its output."""

    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    id: str | None = None


class FunctionCallOutputItem(_Wire):
    """The output of one function call."""

    type: Literal["function_call_output"]
    call_id: str = ""
    output: str | tuple[ContentPart, ...]
    id: str | None = None


class CustomToolCallItem(_Wire):
    """A call of a custom (free-form input) tool."""

    type: Literal["custom_tool_call"]
    call_id: str
    name: str
    input: str
    id: str | None = None


class CustomToolCallOutputItem(_Wire):
    """The output of a custom tool call."""

    type: Literal["custom_tool_call_output"]
    call_id: str = ""
    output: str | tuple[ContentPart, ...]
    id: str | None = None


class ReasoningItem(_Wire):
    """The model's reasoning: ``encrypted_content`` is opaque, and the item must be followed by
    the item the model produced after it."""

    type: Literal["reasoning"]
    id: str = Field(min_length=1)
    summary: tuple[dict[str, Any], ...] = ()
    encrypted_content: str | None = None


class CompactionItem(_Wire):
    """The provider's own compaction of earlier items: ``encrypted_content`` is opaque."""

    type: Literal["compaction"]
    id: str | None = None
    encrypted_content: str


class UnknownItem(_Wire):
    """An item kind this toolkit does not model (hosted tool calls, references, ...)."""

    type: str
    id: str | None = None


_KNOWN = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "compaction",
    }
)


def _item_tag(value: Any) -> str:
    if isinstance(value, dict):
        kind = value.get("type")
        if kind is None and "role" in value:
            return "message"
    else:
        kind = getattr(value, "type", None)
    return str(kind) if kind in _KNOWN else "unknown"


Item = Annotated[
    Annotated[MessageItem, Tag("message")]
    | Annotated[FunctionCallItem, Tag("function_call")]
    | Annotated[FunctionCallOutputItem, Tag("function_call_output")]
    | Annotated[CustomToolCallItem, Tag("custom_tool_call")]
    | Annotated[CustomToolCallOutputItem, Tag("custom_tool_call_output")]
    | Annotated[ReasoningItem, Tag("reasoning")]
    | Annotated[CompactionItem, Tag("compaction")]
    | Annotated[UnknownItem, Tag("unknown")],
    Discriminator(_item_tag),
]

CALL_ITEMS = (FunctionCallItem, CustomToolCallItem)
OUTPUT_ITEMS = (FunctionCallOutputItem, CustomToolCallOutputItem)
# Items a compactor must carry byte for byte or drop whole, and never read as agent state.
OPAQUE_ITEMS = (ReasoningItem, CompactionItem)
# The roles a message item may have.
MESSAGE_ROLES = ("user", "assistant", "system", "developer")
# Items only the model writes (besides assistant messages): what a reasoning item precedes.
_MODEL_ITEMS = (FunctionCallItem, CustomToolCallItem, UnknownItem)


def model_made(item: Item | None) -> bool:
    """Whether the model wrote this item: an assistant message, a call, or an unknown kind."""
    # A run of them after a reasoning item, with nothing else between, reads as the output of
    # the response that reasoned: no one reading the history can tell where one such response
    # ended and the next began, so the laws and the reference take the run as one.
    if isinstance(item, MessageItem):
        return item.role == "assistant"
    return isinstance(item, _MODEL_ITEMS)


class ResponsesInput(_Wire):
    """The parts of a Responses request a compactor reads and rewrites; the rest is carried."""

    instructions: str | None = None
    input: tuple[Item, ...]


def part_text(content: str | tuple[ContentPart, ...]) -> str:
    """The text of a message's or an output's content, parts joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(part.text for part in content if part.text is not None)
