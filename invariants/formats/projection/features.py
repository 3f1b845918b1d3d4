"""A format's own parts: which of them a projection carries, and which a request does.

A projection's features (thinking blocks, reasoning items, compaction items, signatures, cache
markers, images, server tools, item ids) come from one drawn integer, ``Features``: each is
switched on by a digit of it, and where a feature applies per message, a hash of the integer and
the message's place decides, so that the integer shrinks toward 0, a history with none of them.
The statistics read them back off the projected request (``request_features``).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.formats import Format


@dataclass(frozen=True)
class Features:
    """Which of a format's own parts a projection carries, read from one drawn integer."""

    value: int

    def flag(self, position: int, chance: int = 1, out_of: int = 2) -> bool:
        """Digit ``position`` (base ``out_of``) is one of the top ``chance`` values."""
        digit = (self.value >> (3 * position)) % out_of
        return digit >= out_of - chance

    def sometimes(self, salt: str, chance: int, out_of: int) -> bool:
        """A per-place choice: true for ``chance`` of ``out_of`` hashes; never with value 0."""
        if self.value == 0:
            return False
        digest = hashlib.sha256(f"{self.value}:{salt}".encode()).digest()
        return digest[0] % out_of < chance


def opaque(kind: str, seed: str, size: int = 48) -> str:
    """A stand-in for a provider's signature or encrypted payload: base64 of hashed bytes.

    A fake, and honest about it: no provider would verify it, but a compactor cannot tell, and
    the laws only ask that it comes back byte for byte.
    """
    blocks = b""
    counter = 0
    while len(blocks) < size:
        blocks += hashlib.sha256(f"{kind}:{seed}:{counter}".encode()).digest()
        counter += 1
    return base64.b64encode(blocks[:size]).decode()


def _anthropic_features(request: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    blocks = [
        block
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    ]
    kinds = {block["type"] for block in blocks}
    found |= {name for name in ("thinking", "redacted_thinking", "image") if name in kinds}
    if "server_tool_use" in kinds:
        found.add("server_tool_use")
    if any("cache_control" in block for block in blocks) or any(
        "cache_control" in block for block in request.get("system", [])
    ):
        found.add("cache_control")
    if any(block.get("is_error") for block in blocks):
        found.add("tool_result_is_error")
    for message in request["messages"]:
        content = message["content"]
        uses = [b for b in content if b["type"] == "tool_use"] if isinstance(content, list) else []
        if len(uses) > 1:
            found.add("parallel_tool_use")
    return found


def _responses_features(request: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    items = request["input"]
    for index, item in enumerate(items):
        kind = item.get("type")
        if kind == "reasoning":
            found.add("reasoning")
            if item["summary"]:
                found.add("reasoning_summary")
            following = items[index + 1] if index + 1 < len(items) else {}
            found.add(
                "reasoning_before_call"
                if following.get("type") == "function_call"
                else "reasoning_before_message"
            )
        elif kind == "compaction":
            found.add("compaction_item")
        elif kind == "message" and item["role"] == "developer":
            found.add("developer_message")
        elif kind == "message" and isinstance(item["content"], list) and item["role"] == "user":
            found.add("typed_content_parts")
        if "id" in item and kind in ("message", "function_call"):
            found.add("item_ids")
        if kind == "function_call" and index > 0 and items[index - 1].get("type") == kind:
            found.add("parallel_function_calls")
    return found


def _gemini_features(request: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for content in request["contents"]:
        parts = content["parts"]
        calls = [part for part in parts if "functionCall" in part]
        if any("thoughtSignature" in part for part in calls):
            found.add("thought_signature")
        if any(part.get("thought") for part in parts):
            found.add("thought_part")
        if any("id" not in part["functionCall"] for part in calls):
            found.add("calls_without_ids")
        if len(calls) > 1:
            found.add("parallel_function_calls")
        if calls and any("text" in part and not part.get("thought") for part in parts):
            found.add("text_and_call_in_one_turn")
    return found


# Every format's own parts, as the statistics count them; each is drawn in at least 5 % of
# histories (a test keeps it so).
FORMAT_FEATURES: dict[Format, tuple[str, ...]] = {
    "anthropic": (
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "cache_control",
        "image",
        "parallel_tool_use",
        "tool_result_is_error",
    ),
    "openai-responses": (
        "reasoning",
        "reasoning_summary",
        "reasoning_before_call",
        "reasoning_before_message",
        "item_ids",
        "compaction_item",
        "developer_message",
        "typed_content_parts",
        "parallel_function_calls",
    ),
    "gemini": (
        "thought_signature",
        "thought_part",
        "calls_without_ids",
        "parallel_function_calls",
        "text_and_call_in_one_turn",
    ),
}
_FEATURE_READERS = {
    "anthropic": _anthropic_features,
    "openai-responses": _responses_features,
    "gemini": _gemini_features,
}


def request_features(format: Format, request: dict[str, Any]) -> set[str]:
    """Which of its format's own parts a projected request carries."""
    return _FEATURE_READERS[format](request)
