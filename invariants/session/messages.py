"""The model-visible messages a surface derives to, and the content blocks they carry."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag

from compactcheck.invariants.session.envelope import SessionEvent
from compactcheck.invariants.wire import WireModel


class OpenWireModel(WireModel):
    """A wire model that keeps fields it does not know, so a round trip loses nothing."""

    model_config = ConfigDict(extra="allow")


class TextBlock(WireModel):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class ReasoningBlock(WireModel):
    """Model reasoning; never kept in a summary."""

    type: Literal["reasoning"] = "reasoning"
    text: str


class ToolCallBlock(WireModel):
    """One tool call inside an assistant message; arguments stay the raw string."""

    type: Literal["tool-call"] = "tool-call"
    id: str
    name: str
    arguments: str


class ImageBlock(OpenWireModel):
    """An image reference."""

    type: Literal["image"] = "image"
    attachment: Any


class OtherBlock(OpenWireModel):
    """A block kind this toolkit does not model; kept verbatim."""

    type: str


def _block_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    known = {"text", "reasoning", "tool-call", "tool-result", "image"}
    return kind if isinstance(kind, str) and kind in known else "other"


class ToolResultBlock(WireModel):
    """The single block of a tool result message."""

    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    is_error: bool
    content: tuple[ContentBlock, ...]


ContentBlock = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ReasoningBlock, Tag("reasoning")]
    | Annotated[ToolCallBlock, Tag("tool-call")]
    | Annotated[ToolResultBlock, Tag("tool-result")]
    | Annotated[ImageBlock, Tag("image")]
    | Annotated[OtherBlock, Tag("other")],
    Discriminator(_block_kind),
]
ToolResultBlock.model_rebuild()


class MessageSource(OpenWireModel):
    """Where a message came from: user, plugin (with its name), model or tool."""

    kind: str


class UserMessage(WireModel):
    """A user-role message: a prompt, injected context or a compaction checkpoint."""

    id: str = Field(min_length=1)
    role: Literal["user"] = "user"
    content: tuple[ContentBlock, ...]
    source: MessageSource


class AssistantMessage(WireModel):
    """An assistant-role message; empty content derives to nothing."""

    id: str = Field(min_length=1)
    role: Literal["assistant"] = "assistant"
    content: tuple[ContentBlock, ...]
    source: MessageSource


class ToolResultMessage(WireModel):
    """A user-role message that carries exactly one tool-result block."""

    id: str = Field(min_length=1)
    role: Literal["user"] = "user"
    content: tuple[ToolResultBlock]
    source: MessageSource


SessionMessage = UserMessage | AssistantMessage | ToolResultMessage


def raw_event_message(event: SessionEvent) -> dict[str, Any] | None:
    """The raw JSON message an event shows the model, or None when it shows nothing."""
    data = event.data
    if not isinstance(data, dict):
        return None
    if event.type == "user/message":
        return data
    if event.type == "assistant/message":
        message = data.get("message")
        if isinstance(message, dict) and message.get("content"):
            return message
        return None
    if event.type == "tool/result":
        message = data.get("message")
        return message if isinstance(message, dict) else None
    return None


def derive_event_message(event: SessionEvent) -> SessionMessage | None:
    """The typed message an event renders to on the surface, or None (log-only, empty assistant)."""
    raw = raw_event_message(event)
    if raw is None:
        return None
    if event.type == "user/message":
        return UserMessage.from_json_data(raw)
    if event.type == "assistant/message":
        return AssistantMessage.from_json_data(raw)
    return ToolResultMessage.from_json_data(raw)


def is_compact_checkpoint_source(source: object) -> bool:
    """Whether a message source marks a compaction checkpoint (kind plugin, plugin compact)."""
    if isinstance(source, MessageSource):
        source = source.model_dump(by_alias=True)
    return (
        isinstance(source, dict)
        and source.get("kind") == "plugin"
        and source.get("plugin") == "compact"
    )


def checkpoint_source(compaction_id: str, source_command_id: str | None = None) -> dict[str, Any]:
    """The canonical source of a checkpoint message for one compaction."""
    source: dict[str, Any] = {"kind": "plugin", "plugin": "compact", "compactionId": compaction_id}
    if source_command_id is not None:
        source["sourceCommandId"] = source_command_id
    return source
