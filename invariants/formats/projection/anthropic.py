"""A chat history as an Anthropic Messages request, with the format's own parts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Final

from compactcheck.invariants import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.formats.projection.chat import call_input, run_makes_calls, texts
from compactcheck.invariants.formats.projection.features import Features, opaque

# A 1x1 transparent PNG: an image a user pasted, carried whole and never read.
_PIXEL: Final = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)

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
        run_calls = run_makes_calls(messages, index - offset)
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
        blocks += [{"type": "text", "text": said} for said in texts(message)]
        for call in calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.function.name,
                    "input": call_input(call.function.arguments),
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
