"""The Anthropic Messages request as a compactor sees it: ``system`` and ``messages``.

Every block kind a compaction can break is modelled; any other kind (and any field we do not
model) is carried as it came, so that a compactor's answer with a newer block kind still parses
and the laws treat what they do not know as opaque.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag


class _Wire(BaseModel):
    """Provider JSON, snake_case as Anthropic sends it; unknown fields are carried."""

    model_config = ConfigDict(frozen=True, extra="allow")

    def to_json_data(self) -> dict[str, Any]:
        """The object as it came: only the keys that were given."""
        return self.model_dump(mode="json", exclude_unset=True)


class _Block(_Wire):
    """What every content block may carry: a prompt-cache breakpoint."""

    cache_control: dict[str, Any] | None = None


class TextBlock(_Block):
    """Text, in either role."""

    type: Literal["text"]
    text: str


class ImageBlock(_Block):
    """An image; its ``source`` is carried or dropped whole."""

    type: Literal["image"]
    source: dict[str, Any]


class DocumentBlock(_Block):
    """A document (PDF, plain text); its ``source`` is carried or dropped whole."""

    type: Literal["document"]
    source: dict[str, Any]


class ToolUseBlock(_Block):
    """A client tool call of an assistant turn; ``id`` pairs it with its result."""

    type: Literal["tool_use"]
    id: str = Field(min_length=1)
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(_Block):
    """The result of one tool call, in the user turn right after the call."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: str | tuple[Block, ...] | None = None
    is_error: bool | None = None


class ThinkingBlock(_Block):
    """Extended thinking: the signature covers the text, so neither may change."""

    type: Literal["thinking"]
    thinking: str
    signature: str


class RedactedThinkingBlock(_Block):
    """Thinking the provider encrypted: ``data`` is opaque."""

    type: Literal["redacted_thinking"]
    data: str


class ServerToolUseBlock(_Block):
    """A call to a tool the provider runs (web search, code execution, ...)."""

    type: Literal["server_tool_use"]
    id: str = Field(min_length=1)
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ServerToolResultBlock(_Block):
    """The result of a server tool (``web_search_tool_result`` and its kin), right after it."""

    type: str
    tool_use_id: str
    content: Any = None


class CompactionBlock(_Block):
    """The provider's own compaction of earlier turns: ``encrypted_content`` is opaque."""

    type: Literal["compaction"]
    content: str | None = None
    encrypted_content: str | None = None


class UnknownBlock(_Block):
    """A block kind this toolkit does not model: carried, never read."""

    type: str


def _block_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if kind in _KNOWN:
        return str(kind)
    if isinstance(kind, str) and kind.endswith("_tool_result"):
        return "server_tool_result"
    return "unknown"


_KNOWN = frozenset(
    {
        "text",
        "image",
        "document",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "compaction",
    }
)

Block = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ImageBlock, Tag("image")]
    | Annotated[DocumentBlock, Tag("document")]
    | Annotated[ToolUseBlock, Tag("tool_use")]
    | Annotated[ToolResultBlock, Tag("tool_result")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[RedactedThinkingBlock, Tag("redacted_thinking")]
    | Annotated[ServerToolUseBlock, Tag("server_tool_use")]
    | Annotated[ServerToolResultBlock, Tag("server_tool_result")]
    | Annotated[CompactionBlock, Tag("compaction")]
    | Annotated[UnknownBlock, Tag("unknown")],
    Discriminator(_block_tag),
]

# Blocks a compactor must carry byte for byte or drop whole, and never read as agent state.
OPAQUE_BLOCKS = (ThinkingBlock, RedactedThinkingBlock, CompactionBlock)


class AnthropicMessage(_Wire):
    """One turn: a string, or a list of blocks."""

    role: Literal["user", "assistant"]
    content: str | tuple[Block, ...]

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The content as blocks (a string is one text block)."""
        if isinstance(self.content, str):
            return (TextBlock(type="text", text=self.content),)
        return self.content


class AnthropicRequest(_Wire):
    """The parts of a Messages request a compactor reads and rewrites.

    ``thinking`` is the request's extended-thinking setting; other request fields (model,
    tools, max_tokens, ...) are carried.
    """

    system: str | tuple[TextBlock, ...] | None = None
    messages: tuple[AnthropicMessage, ...]
    thinking: dict[str, Any] | None = None

    @property
    def thinking_enabled(self) -> bool:
        """Whether the request turns extended thinking on."""
        return bool(self.thinking) and (self.thinking or {}).get("type") != "disabled"


ToolResultBlock.model_rebuild()
