"""A chat history as an OpenAI Responses input, with the format's own parts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from compactcheck.invariants import (
    AssistantMessage,
    ChatMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
    content_text,
)
from compactcheck.invariants.formats.projection.chat import is_summary, texts
from compactcheck.invariants.formats.projection.features import Features, opaque


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
            if compaction and is_summary(message):
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
                "content": [{"type": "output_text", "text": said} for said in texts(message)],
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
