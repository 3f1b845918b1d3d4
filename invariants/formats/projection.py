"""One history in every provider format: a chat projection rewritten with each format's own parts.

A format's features (thinking blocks, reasoning items, compaction items, signatures, cache
markers, images, server tools, item ids) come from one drawn integer, ``features``: each is
switched on by a digit of it, and where a feature applies per message, a hash of the integer and
the message's place decides, so that the integer shrinks toward 0, a history with none of them.
Every projection is one its provider accepts (when the chat history is one chat completions
accepts): the structural laws of each format hold on it, and a property test keeps it so.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from compactcheck.invariants import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.formats import CHAT, Format

# The first words of an earlier compaction's summary in every projection (messages_view).
SUMMARY_PREFIX: Final = "Summary of the conversation so far."
# A 1x1 transparent PNG: an image a user pasted, carried whole and never read.
_PIXEL: Final = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


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


def _is_summary(message: ChatMessage) -> bool:
    return isinstance(message, UserMessage) and content_text(message.content).startswith(
        SUMMARY_PREFIX
    )


def _texts(message: ChatMessage) -> list[str]:
    """A message's texts: one per part of a multi-part content, else its one text (if any)."""
    if isinstance(message.content, tuple):
        return [part.text for part in message.content]
    return [message.content] if message.content else []


def _run_calls(messages: Sequence[ChatMessage], start: int) -> bool:
    """Whether the run of assistant messages starting at ``start`` makes a tool call."""
    for message in messages[start:]:
        if not isinstance(message, AssistantMessage):
            return False
        if message.tool_calls:
            return True
    return False


def _input(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except ValueError:
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"arguments": value}


def _names(messages: Sequence[ChatMessage]) -> dict[str, str]:
    return {
        call.id: call.function.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls or ()
    }


# -- Anthropic Messages ----------------------------------------------------------------------

THINKING = {"type": "enabled", "budget_tokens": 2048}


def to_anthropic(
    messages: Sequence[ChatMessage],
    features: Features,
    errors: Collection[str] = (),
    offset: int = 0,
) -> dict[str, Any]:
    """The history as an Anthropic Messages request (``system`` and ``messages``).

    Features: extended thinking (every assistant turn that calls tools opens with a signed
    thinking block, some with redacted thinking, some text turns too), prompt-cache markers on
    the system prompt and the last user turn, an image in the first user turn, and a server
    web search before some assistant answers.
    """
    thinking = features.flag(0)
    # Markers and the image only once, in the first round's projection: the next rounds'
    # turns are appended to the answer so far, which may already hold them.
    caching = features.flag(1, 1, 3) and offset == 0
    image = features.flag(2, 1, 4) and offset == 0
    searching = features.flag(3, 1, 3)
    request: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    first_user = True

    def close_results() -> None:
        if results:
            out.append({"role": "user", "content": list(results)})
            results.clear()

    for index, message in enumerate(messages, start=offset):
        text = content_text(message.content) if message.content is not None else ""
        if isinstance(message, SystemMessage):
            block: dict[str, Any] = {"type": "text", "text": text}
            if caching:
                block["cache_control"] = {"type": "ephemeral"}
            request["system"] = [block]
            continue
        if isinstance(message, ToolMessage):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": text,
            }
            if message.tool_call_id in errors:
                result["is_error"] = True
            results.append(result)
            continue
        close_results()
        if isinstance(message, UserMessage):
            content: list[dict[str, Any]] = []
            if first_user and image:
                content.append(
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": _PIXEL},
                    }
                )
            content.append({"type": "text", "text": text})
            first_user = False
            out.append({"role": "user", "content": content})
            continue
        assert isinstance(message, AssistantMessage)
        blocks: list[dict[str, Any]] = []
        calls = message.tool_calls or ()
        # The API joins consecutive assistant messages into one turn: thinking opens the turn,
        # on its first message, and always where the turn calls tools.
        opens = not out or out[-1]["role"] != "assistant"
        run_calls = _run_calls(messages, index - offset)
        if thinking and opens and (run_calls or features.sometimes(f"think{index}", 1, 2)):
            seed = f"{features.value}:{index}"
            if features.sometimes(f"redact{index}", 1, 4):
                blocks.append({"type": "redacted_thinking", "data": opaque("redacted", seed)})
            else:
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": f"Next: {text[:60] or 'call the tools'}",
                        "signature": opaque("signature", seed),
                    }
                )
        if searching and not calls and features.sometimes(f"search{index}", 1, 2):
            search_id = f"srvtoolu_{index:04d}"
            blocks.append(
                {
                    "type": "server_tool_use",
                    "id": search_id,
                    "name": "web_search",
                    "input": {"query": text[:40] or "docs"},
                }
            )
            blocks.append(
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": search_id,
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://docs.example.org/page",
                            "title": "Reference",
                            "encrypted_content": opaque("search", search_id),
                        }
                    ],
                }
            )
        blocks += [{"type": "text", "text": said} for said in _texts(message)]
        for call in calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.function.name,
                    "input": _input(call.function.arguments),
                }
            )
        out.append({"role": "assistant", "content": blocks})
    close_results()
    if caching:
        last_user = next(
            (
                m
                for m in reversed(out)
                if m["role"] == "user" and m["content"][-1]["type"] == "text"
            ),
            None,
        )
        if last_user is not None:
            last_user["content"][-1]["cache_control"] = {"type": "ephemeral"}
    request["messages"] = out
    if thinking:
        request["thinking"] = dict(THINKING)
    return request


# -- OpenAI Responses --------------------------------------------------------------------------


def to_responses(
    messages: Sequence[ChatMessage],
    features: Features,
    errors: Collection[str] = (),
    offset: int = 0,
) -> dict[str, Any]:
    """The history as a Responses API input (``instructions`` and ``input`` items).

    Features: reasoning items (encrypted, with a summary) before the model's calls and some of
    its messages, item ids on the model's output items, an encrypted compaction item in place of
    an earlier compaction, the system prompt as a developer message instead of instructions,
    and typed content parts instead of plain strings.
    """
    del errors
    reasoning = features.flag(0)
    with_ids = features.flag(1)
    compaction = features.flag(2)
    developer = features.flag(3, 1, 3)
    parts = features.flag(4)
    request: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    counter = 0

    def next_id(prefix: str, index: int) -> str:
        # From the message's place in the whole history: ids stay unique across rounds.
        nonlocal counter
        counter += 1
        return f"{prefix}_{features.value:x}{index:04d}{counter % 1000:03d}"

    def reason(index: int) -> None:
        item_id = next_id("rs", index)
        summary = (
            [{"type": "summary_text", "text": "Planning the next step."}]
            if features.sometimes(f"summary{index}", 1, 2)
            else []
        )
        items.append(
            {
                "type": "reasoning",
                "id": item_id,
                "summary": summary,
                "encrypted_content": opaque("reasoning", item_id),
            }
        )

    for index, message in enumerate(messages, start=offset):
        text = content_text(message.content) if message.content is not None else ""
        if isinstance(message, SystemMessage):
            if developer:
                items.append({"type": "message", "role": "developer", "content": text})
            else:
                request["instructions"] = text
            continue
        if isinstance(message, ToolMessage):
            items.append(
                {"type": "function_call_output", "call_id": message.tool_call_id, "output": text}
            )
            continue
        if isinstance(message, UserMessage):
            if compaction and _is_summary(message):
                item_id = next_id("cmp", index)
                items.append(
                    {
                        "type": "compaction",
                        "id": item_id,
                        "encrypted_content": opaque("compaction", item_id, 96),
                    }
                )
            content: Any = [{"type": "input_text", "text": text}] if parts else text
            items.append({"type": "message", "role": "user", "content": content})
            continue
        assert isinstance(message, AssistantMessage)
        calls = message.tool_calls or ()
        if reasoning and (calls or features.sometimes(f"think{index}", 1, 2)):
            reason(index)
        if text:
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": said} for said in _texts(message)],
            }
            if with_ids:
                item["id"] = next_id("msg", index)
            items.append(item)
        for call in calls:
            call_item: dict[str, Any] = {
                "type": "function_call",
                "call_id": call.id,
                "name": call.function.name,
                "arguments": call.function.arguments,
            }
            if with_ids:
                call_item["id"] = next_id("fc", index)
            items.append(call_item)
    request["input"] = items
    return request


# -- Gemini ----------------------------------------------------------------------------------------


def to_gemini(
    messages: Sequence[ChatMessage],
    features: Features,
    errors: Collection[str] = (),
    offset: int = 0,
) -> dict[str, Any]:
    """The history as Gemini ``systemInstruction`` and ``contents``.

    Consecutive assistant messages become one model turn (a model turn that calls functions
    must follow a user turn or a function response turn), and the results of one call turn
    become one user turn of function responses. Features: a thinking model (the first function
    call of each model turn carries a thought signature, some turns open with a thought
    summary), and calls and responses without ids.
    """
    thinking = features.flag(0)
    # Calls carry ids unless a digit says otherwise (Vertex AI may leave them unset).
    with_ids = not features.flag(1, 1, 3)
    request: dict[str, Any] = {}
    contents: list[dict[str, Any]] = []
    names = _names(messages)

    def turn(role: str) -> list[dict[str, Any]]:
        if contents and contents[-1]["role"] == role and role == "model":
            parts: list[dict[str, Any]] = contents[-1]["parts"]
            return parts
        contents.append({"role": role, "parts": []})
        fresh: list[dict[str, Any]] = contents[-1]["parts"]
        return fresh

    previous_was_response = False
    for index, message in enumerate(messages, start=offset):
        text = content_text(message.content) if message.content is not None else ""
        if isinstance(message, SystemMessage):
            request["systemInstruction"] = {"parts": [{"text": text}]}
            continue
        if isinstance(message, ToolMessage):
            if not previous_was_response:
                contents.append({"role": "user", "parts": []})
            key = "error" if message.tool_call_id in errors else "output"
            response: dict[str, Any] = {
                "name": names.get(message.tool_call_id, "tool"),
                "response": {key: text},
            }
            if with_ids:
                response["id"] = message.tool_call_id
            contents[-1]["parts"].append({"functionResponse": response})
            previous_was_response = True
            continue
        previous_was_response = False
        if isinstance(message, UserMessage):
            contents.append({"role": "user", "parts": [{"text": text}]})
            continue
        assert isinstance(message, AssistantMessage)
        parts = turn("model")
        calls = message.tool_calls or ()
        if thinking and not parts and features.sometimes(f"thought{index}", 1, 2):
            parts.append(
                {
                    "text": "Thinking about the next step.",
                    "thought": True,
                    "thoughtSignature": opaque("thought", f"{features.value}:{index}"),
                }
            )
        parts += [{"text": said} for said in _texts(message)]
        for position, call in enumerate(calls):
            function: dict[str, Any] = {
                "name": call.function.name,
                "args": _input(call.function.arguments),
            }
            if with_ids:
                function["id"] = call.id
            part: dict[str, Any] = {"functionCall": function}
            if thinking and position == 0:
                part["thoughtSignature"] = opaque("signature", f"{features.value}:{call.id}")
            parts.append(part)
    request["contents"] = contents
    return request


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
