"""The wire formats of the messages view, and one reading of each for the semantic laws.

``openai-chat`` is OpenAI chat completions (a list of chat dicts); ``anthropic`` the Messages
API's ``system`` and ``messages``; ``openai-responses`` the Responses API's ``instructions`` and
``input`` items; ``gemini`` generateContent's ``systemInstruction`` and ``contents``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from invariants.errors import CompactcheckError
from invariants.formats.anthropic import AnthropicRequest
from invariants.formats.gemini import GeminiRequest
from invariants.formats.reading import read_anthropic, read_gemini, read_responses
from invariants.formats.responses import ResponsesInput
from invariants.messages import ChatMessage

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
    "check_format",
    "format_of",
    "history_of",
    "parse_request",
    "read",
]
