"""One history in every provider format: a chat projection rewritten with each format's own parts.

Which of its own parts a projection carries comes from one drawn integer (``Features``). Every
projection is one its provider accepts (when the chat history is one chat completions accepts):
the structural laws of each format hold on it, and a property test keeps it so.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from compactcheck.invariants import ChatMessage
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.invariants.formats.projection.anthropic import to_anthropic
from compactcheck.invariants.formats.projection.features import (
    FORMAT_FEATURES,
    Features,
    request_features,
)
from compactcheck.invariants.formats.projection.gemini import to_gemini
from compactcheck.invariants.formats.projection.responses import to_responses

__all__ = ["FORMAT_FEATURES", "PROJECTORS", "Features", "project_format", "request_features"]

PROJECTORS = {"anthropic": to_anthropic, "openai-responses": to_responses, "gemini": to_gemini}


def project_format(
    format: Format,
    messages: Sequence[ChatMessage],
    features: Features,
    errors: Collection[str] = (),
    offset: int = 0,
) -> dict[str, Any]:
    """A chat history as a request of ``format`` (chat completions: ``{"messages": [...]}``).

    ``offset`` is the place of ``messages[0]`` in the whole history, when these are the next
    turns of a later round: ids and per-message choices follow the place, so that they stay
    unique and the same whichever round a message first appears in.
    """
    if format == CHAT:
        return {"messages": [message.to_json_data() for message in messages]}
    return PROJECTORS[format](messages, features, errors, offset)
