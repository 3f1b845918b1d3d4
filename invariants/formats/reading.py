"""One reading of any provider format: the chat messages the semantic laws judge.

What the agent can read (instructions, user and assistant text, tool calls and their results)
becomes OpenAI chat messages; what is opaque (thinking, reasoning, signatures, compaction items,
images, server tools, unknown kinds) is not read, so that no law takes it for agent state.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats import gemini, responses
from compactcheck.invariants.messages import (
    AssistantMessage,
    ChatMessage,
    FunctionCall,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def _arguments(value: dict[str, Any] | None) -> str:
    return json.dumps(value or {}, separators=(",", ":"), ensure_ascii=False)


def _said(texts: list[str]) -> str | tuple[TextPart, ...] | None:
    """What a turn's text blocks or parts say: none, one text, or one part per text."""
    if not texts:
        return None
    if len(texts) == 1:
        return texts[0]
    return tuple(TextPart(text=text) for text in texts)


def _call(call_id: str, name: str, arguments: str) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name or "?", arguments=arguments))


def _result_text(content: str | tuple[claude.Block, ...] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content if isinstance(block, claude.TextBlock))


def read_anthropic(request: claude.AnthropicRequest) -> tuple[ChatMessage, ...]:
    """An Anthropic request as chat messages: a user turn's results first, then its text."""
    out: list[ChatMessage] = []
    system = request.system
    if isinstance(system, str):
        out.append(SystemMessage(content=system))
    elif system:
        out.append(SystemMessage(content="\n".join(block.text for block in system)))
    for message in request.messages:
        texts = [block.text for block in message.blocks if isinstance(block, claude.TextBlock)]
        if message.role == "assistant":
            calls = tuple(
                _call(block.id, block.name, _arguments(block.input))
                for block in message.blocks
                if isinstance(block, claude.ToolUseBlock)
            )
            if texts or calls:
                out.append(AssistantMessage(content=_said(texts), tool_calls=calls or None))
            continue
        for block in message.blocks:
            if isinstance(block, claude.ToolResultBlock):
                out.append(
                    ToolMessage(tool_call_id=block.tool_use_id, content=_result_text(block.content))
                )
        if texts or isinstance(message.content, str):
            out.append(UserMessage(content="\n".join(texts)))
    return tuple(out)


def read_responses(request: responses.ResponsesInput) -> tuple[ChatMessage, ...]:
    """A Responses input as chat messages: a run of calls is one assistant message."""
    out: list[ChatMessage] = []
    if request.instructions is not None:
        out.append(SystemMessage(content=request.instructions))
    calls: list[ToolCall] = []

    def flush() -> Iterator[ChatMessage]:
        if calls:
            yield AssistantMessage(tool_calls=tuple(calls))
            calls.clear()

    for item in request.input:
        if isinstance(item, responses.FunctionCallItem):
            calls.append(_call(item.call_id, item.name, item.arguments))
            continue
        if isinstance(item, responses.CustomToolCallItem):
            calls.append(_call(item.call_id, item.name, item.input))
            continue
        if isinstance(item, (*responses.OPAQUE_ITEMS, responses.UnknownItem)):
            # Not read, and not a break in a run of calls either: reasoning sits between them.
            continue
        out.extend(flush())
        if isinstance(item, responses.OUTPUT_ITEMS):
            out.append(
                ToolMessage(
                    tool_call_id=item.call_id or "?", content=responses.part_text(item.output)
                )
            )
        elif isinstance(item, responses.MessageItem):
            text = responses.part_text(item.content)
            if item.role in ("system", "developer"):
                out.append(SystemMessage(content=text))
            elif item.role == "assistant":
                texts = (
                    [item.content]
                    if isinstance(item.content, str)
                    else [part.text for part in item.content if part.text is not None]
                )
                out.append(AssistantMessage(content=_said(texts) or ""))
            else:
                out.append(UserMessage(content=text))
    out.extend(flush())
    return tuple(out)


def gemini_response_text(response: dict[str, Any]) -> str:
    """A function response as text: its one string value, or the object as JSON."""
    if len(response) == 1:
        (value,) = response.values()
        if isinstance(value, str):
            return value
    return json.dumps(response, separators=(",", ":"), ensure_ascii=False)


def gemini_call_ids(request: gemini.GeminiRequest) -> dict[tuple[int, int], str]:
    """The id of every function call and response part, by (content, part) index.

    A call without an ``id`` gets one from what it calls and how often it is called again
    later; a response without one takes the id of the call at the same position in the model
    turn before it, as Gemini pairs them.
    """
    ids: dict[tuple[int, int], str] = {}
    last_calls: list[str] = []
    # A call without an id is named by what it calls (name and arguments) and by how many times
    # that same call is made after it: a compaction keeps the recent turns, so counted from the
    # end, a call has the same name before and after whatever was dropped before it.
    later: dict[str, int] = {}
    occurrence: dict[tuple[int, int], int] = {}
    for at in range(len(request.contents) - 1, -1, -1):
        parts = request.contents[at].parts
        for index in range(len(parts) - 1, -1, -1):
            call = parts[index].function_call
            if call is not None and call.id is None:
                what = f"{call.name}:{_arguments(call.args)}"
                later[what] = later.get(what, 0) + 1
                occurrence[(at, index)] = later[what]
    for at, content in enumerate(request.contents):
        made: list[str] = []
        answered = 0
        for index, part in enumerate(content.parts):
            if part.function_call is not None:
                call_id = part.function_call.id
                if call_id is None:
                    what = f"{part.function_call.name}:{_arguments(part.function_call.args)}"
                    digest = hashlib.sha256(what.encode()).hexdigest()[:10]
                    call_id = f"{part.function_call.name}-{digest}-{occurrence[(at, index)]}"
                ids[(at, index)] = call_id
                made.append(call_id)
            elif part.function_response is not None:
                response_id = part.function_response.id
                if response_id is None:
                    response_id = (
                        last_calls[answered]
                        if answered < len(last_calls)
                        else f"{part.function_response.name}-unanswered-{at}.{index}"
                    )
                ids[(at, index)] = response_id
                answered += 1
        if made or content.role == "model":
            last_calls = made
    return ids


def read_gemini(request: gemini.GeminiRequest) -> tuple[ChatMessage, ...]:
    """Gemini contents as chat messages (thought parts are not read)."""
    out: list[ChatMessage] = []
    if request.system_instruction is not None:
        text = "\n".join(p.text for p in request.system_instruction.parts if p.text is not None)
        out.append(SystemMessage(content=text))
    ids = gemini_call_ids(request)
    for at, content in enumerate(request.contents):
        texts = [p.text for p in content.parts if p.text is not None and not p.thought]
        if content.role == "model":
            calls = tuple(
                _call(
                    ids[(at, index)], part.function_call.name, _arguments(part.function_call.args)
                )
                for index, part in enumerate(content.parts)
                if part.function_call is not None
            )
            if texts or calls:
                out.append(AssistantMessage(content=_said(texts), tool_calls=calls or None))
            continue
        if texts:
            out.append(UserMessage(content="\n".join(texts)))
        for index, part in enumerate(content.parts):
            if part.function_response is not None:
                out.append(
                    ToolMessage(
                        tool_call_id=ids[(at, index)],
                        content=gemini_response_text(part.function_response.response),
                    )
                )
    return tuple(out)
