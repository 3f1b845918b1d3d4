"""Converting a history between provider formats, where they overlap, without losing anything.

What every format can say (instructions, user and assistant text, tool calls with their ids and
arguments, their results) converts both ways; a round trip gives back the request it started
from. What only one format has (thinking and its signatures, reasoning and compaction items,
thought signatures, images, server tools, cache markers, item ids, an error flag on a result)
has no place in the other, so the converter names it and refuses instead of inventing or
silently dropping it. Gemini joins consecutive assistant turns into one model turn (a model turn
that calls functions must follow a user or function response turn), so a history converted into
Gemini reads its consecutive assistant messages as one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from compactcheck.invariants import dump_messages, json_copy, parse_messages
from compactcheck.invariants.errors import CompactcheckError, one_line
from compactcheck.invariants.formats import CHAT, Format, NativeRequest, gemini, parse_request, read
from compactcheck.invariants.formats import anthropic as claude
from compactcheck.invariants.formats import responses as openai
from compactcheck.invariants.formats.projection import Features, project_format
from compactcheck.invariants.messages import ChatMessage

# Formats that can mark a tool result as an error (Anthropic is_error, Gemini "error").
_ERROR_FLAGS = ("anthropic", "gemini")


class ConversionError(CompactcheckError):
    """A history that cannot be converted without losing or inventing something."""


def _anthropic_only(request: claude.AnthropicRequest) -> Iterator[str]:
    if request.thinking is not None:
        yield "the request's thinking setting"
    if isinstance(request.system, tuple) and any(b.cache_control for b in request.system):
        yield "a cache_control marker on the system prompt"
    for index, message in enumerate(request.messages):
        for block in message.blocks:
            if isinstance(block, claude.TextBlock | claude.ToolUseBlock | claude.ToolResultBlock):
                if block.cache_control is not None:
                    yield f"a cache_control marker in messages.{index}"
                inner = block.content if isinstance(block, claude.ToolResultBlock) else None
                if isinstance(inner, tuple) and any(
                    not isinstance(part, claude.TextBlock) for part in inner
                ):
                    yield f"a tool_result with non-text content in messages.{index}"
                continue
            yield f"a {block.type} block in messages.{index}"


def _responses_only(request: openai.ResponsesInput) -> Iterator[str]:
    for index, item in enumerate(request.input):
        if isinstance(item, openai.MessageItem | openai.FunctionCallItem):
            if item.id is not None:
                yield f"the item id {item.id} of input[{index}]"
            content = item.content if isinstance(item, openai.MessageItem) else None
            if isinstance(content, tuple) and any(part.text is None for part in content):
                yield f"a non-text content part in input[{index}]"
            continue
        if isinstance(item, openai.FunctionCallOutputItem):
            continue
        yield f"a {item.type} item at input[{index}]"


def _gemini_only(request: gemini.GeminiRequest) -> Iterator[str]:
    for at, content in enumerate(request.contents):
        for index, part in enumerate(content.parts):
            where = f"contents[{at}].parts[{index}]"
            if part.thought_signature is not None:
                yield f"a thought signature on {where}"
            if part.thought:
                yield f"a thought part at {where}"
            if part.function_call is not None and part.function_call.id is None:
                yield f"a function call without an id at {where} (other formats need one)"
            others = (part.inline_data, part.file_data, part.executable_code)
            if any(value is not None for value in (*others, part.code_execution_result)):
                yield f"inline data, a file or code at {where}"


def _own_parts(request: NativeRequest) -> list[str]:
    if isinstance(request, claude.AnthropicRequest):
        return list(_anthropic_only(request))
    if isinstance(request, openai.ResponsesInput):
        return list(_responses_only(request))
    return list(_gemini_only(request))


def _errors(request: NativeRequest) -> set[str]:
    """The call ids whose results the request marks as errors."""
    if isinstance(request, claude.AnthropicRequest):
        return {
            block.tool_use_id
            for message in request.messages
            for block in message.blocks
            if isinstance(block, claude.ToolResultBlock) and block.is_error
        }
    if isinstance(request, gemini.GeminiRequest):
        return {
            part.function_response.id or ""
            for content in request.contents
            for part in content.parts
            if part.function_response is not None and "error" in part.function_response.response
        }
    return set()


def _gemini_results(request: gemini.GeminiRequest) -> list[str]:
    """Responses whose object another format cannot hold as text (not one output or error)."""
    found = []
    for content in request.contents:
        for part in content.parts:
            response = part.function_response
            if response is not None and (
                len(response.response) != 1
                or not isinstance(next(iter(response.response.values())), str)
                or next(iter(response.response)) not in ("output", "error")
            ):
                found.append(f"the structured response of {response.name}")
    return found


def convert(data: Any, source: Format, target: Format) -> dict[str, Any]:
    """A history in ``source`` format as ``target`` format (chat completions: ``{"messages":
    [...]}``); ConversionError naming what would be lost or invented otherwise."""
    try:
        if source == CHAT:
            messages: tuple[ChatMessage, ...] = parse_messages(
                data.get("messages") if isinstance(data, dict) else data
            )
            lost: list[str] = []
            errors: set[str] = set()
        else:
            request = parse_request(source, data)
            messages = read(request)
            lost = _own_parts(request)
            if isinstance(request, gemini.GeminiRequest):
                lost += _gemini_results(request)
            errors = _errors(request)
    except ValidationError as error:
        raise ConversionError(f"not a valid {source} history: {one_line(error)}") from None
    if errors and target not in _ERROR_FLAGS:
        lost.append(f"the error flag on the result(s) of {', '.join(sorted(errors))}")
    if source == target:
        same: dict[str, Any] = json_copy(data if isinstance(data, dict) else {"messages": data})
        return same
    if lost:
        raise ConversionError(
            f"cannot convert {source} to {target} without losing "
            + "; ".join(dict.fromkeys(lost))
            + f" ({target} has no place for it)"
        )
    if target == CHAT:
        return {"messages": dump_messages(messages)}
    return project_format(target, messages, Features(0), errors)
