"""The wire formats of the messages view, and one reading of each for the semantic laws.

``openai-chat`` is OpenAI chat completions (a list of chat dicts); ``anthropic`` the Messages
API's ``system`` and ``messages``; ``openai-responses`` the Responses API's ``instructions`` and
``input`` items; ``gemini`` generateContent's ``systemInstruction`` and ``contents``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from compactcheck.invariants.errors import CompactcheckError
from compactcheck.invariants.formats.anthropic import AnthropicRequest
from compactcheck.invariants.formats.gemini import GeminiRequest
from compactcheck.invariants.formats.reading import read_anthropic, read_gemini, read_responses
from compactcheck.invariants.formats.responses import ResponsesInput
from compactcheck.invariants.messages import ChatMessage

Format = Literal["openai-chat", "anthropic", "openai-responses", "gemini"]
FORMATS: tuple[Format, ...] = get_args(Format)
CHAT: Format = "openai-chat"

# A provider request of a format other than chat completions, as parsed.
NativeRequest = AnthropicRequest | ResponsesInput | GeminiRequest

# The request field that holds the history, per format: a compactor that returns a bare list
# returns that field, the rest of the request unchanged.
HISTORY_FIELD: dict[Format, str] = {
    "openai-chat": "messages",
    "anthropic": "messages",
    "openai-responses": "input",
    "gemini": "contents",
}

_MODELS: dict[Format, type[NativeRequest]] = {
    "anthropic": AnthropicRequest,
    "openai-responses": ResponsesInput,
    "gemini": GeminiRequest,
}


class UnknownFormatError(CompactcheckError, ValueError):
    """A format name this toolkit does not speak."""


def check_format(name: str) -> Format:
    """The format ``name`` names; UnknownFormatError otherwise."""
    if name not in FORMATS:
        raise UnknownFormatError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}")
    return name


def parse_request(format: Format, data: object) -> NativeRequest:
    """A provider request of ``format`` (not chat completions), validated."""
    if format == CHAT:
        raise UnknownFormatError("chat completions is a message list: use parse_messages")
    return _MODELS[format].model_validate(data)


def read(request: NativeRequest) -> tuple[ChatMessage, ...]:
    """The chat messages a native request holds, as the semantic laws read them."""
    if isinstance(request, AnthropicRequest):
        return read_anthropic(request)
    if isinstance(request, ResponsesInput):
        return read_responses(request)
    return read_gemini(request)


def format_of(request: NativeRequest) -> Format:
    """The format of a parsed request."""
    if isinstance(request, AnthropicRequest):
        return "anthropic"
    if isinstance(request, ResponsesInput):
        return "openai-responses"
    return "gemini"


def history_of(format: Format, request: dict[str, Any]) -> list[Any]:
    """The history list of a request as JSON data (empty when absent or not a list)."""
    value = request.get(HISTORY_FIELD[format])
    return value if isinstance(value, list) else []


# Content block kinds only the Anthropic Messages API has (chat completions parts are "text",
# "image_url", "input_audio", "file", "refusal").
_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "document",
     "image", "web_search_tool_result", "search_result", "container_upload", "compaction"}
)  # fmt: skip


def detect_format(data: object) -> Format | None:
    """The format a history or request is in, read from its shape; None if nothing tells.

    A request object names its history field (``contents`` for Gemini, ``input`` for
    Responses, ``messages`` for chat completions or Anthropic); a bare list is read from its
    items (Gemini ``parts``, Responses item ``type``s, Anthropic-only block kinds, chat roles).
    Chat completions and Anthropic share plain-text messages: such a history, with no system or
    tool message and no block only Anthropic has, reads as chat completions, which judges it the
    same way.
    """
    if isinstance(data, dict):
        if isinstance(data.get("contents"), list) or "systemInstruction" in data:
            return "gemini"
        if isinstance(data.get("input"), list) or "instructions" in data:
            return "openai-responses"
        messages = data.get("messages")
        if not isinstance(messages, list):
            return None
        if isinstance(data.get("system"), (str, list)) or _anthropic_items(messages):
            return "anthropic"
        return CHAT
    if not isinstance(data, list) or not data:
        return None
    items = [item for item in data if isinstance(item, dict)]
    if any("parts" in item for item in items):
        return "gemini"
    if any("type" in item and "role" not in item for item in items) or any(
        item.get("type") == "message" for item in items
    ):
        return "openai-responses"
    if _anthropic_items(items):
        return "anthropic"
    return CHAT if any("role" in item for item in items) else None


def _anthropic_items(messages: list[Any]) -> bool:
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("system", "tool", "developer", "function"):
            return False
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(block, dict) and block.get("type") in _ANTHROPIC_BLOCKS for block in content
        ):
            return True
    return False


def as_request(format: Format, data: object) -> object:
    """``data`` as a request object of ``format``: a bare history list is wrapped in its field."""
    if format != CHAT and isinstance(data, list):
        return {HISTORY_FIELD[format]: data}
    return data


__all__ = [
    "CHAT",
    "FORMATS",
    "HISTORY_FIELD",
    "AnthropicRequest",
    "Format",
    "GeminiRequest",
    "NativeRequest",
    "ResponsesInput",
    "UnknownFormatError",
    "as_request",
    "check_format",
    "detect_format",
    "format_of",
    "history_of",
    "parse_request",
    "read",
]
