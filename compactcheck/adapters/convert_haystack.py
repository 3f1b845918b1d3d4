"""OpenAI chat dicts to Haystack (haystack-ai) chat messages and back, losslessly.

Tool calls travel as ``ToolCall`` with their ids; a tool message becomes a ``ToolCallResult``
whose ``origin`` is the very call it answers (as a Haystack agent records it), so that the
compactors see the tool's name. Arguments travel parsed (Haystack keeps a dict); where the parsed
form would not print back to the very string OpenAI sent, the string rides along in the call's
``extra``. Text parts of a system, user or assistant message are one ``TextContent`` each, marked
in ``meta`` so that a single part does not read back as a plain string.

Haystack marks the messages its compactors write (summaries, omission notes, pruned and offloaded
results) in ``meta``, which a chat dict has no place for; an agent's state keeps them between
steps. So a message whose text is exactly one of those shapes gets its marker back on the way in,
and a later compaction treats it as Haystack's own note, as it would in a running agent. The
shapes are Haystack's private constants, pinned with haystack-ai 3.4.1.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any

# Haystack reads this when it is first imported: a fuzzing run sends no telemetry.
os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack.dataclasses import (
    ChatMessage,
    ChatRole,
    TextContent,
    ToolCall,
    ToolCallResult,
)
from haystack.dataclasses.chat_message import ChatMessageContentT
from haystack.hooks.compaction.sliding_window import (
    _DEFAULT_OMISSION_NOTE,
    _NUM_REMOVED_PLACEHOLDER,
)
from haystack.hooks.compaction.tool_result_pruning import _DEFAULT_PLACEHOLDER
from haystack.hooks.compaction.utils import _COMPACTION_META_KEY
from haystack.hooks.tool_result_offloading.utils import _OFFLOADED_META_KEY

# Keys of meta and of ToolCall.extra that carry what Haystack's own fields cannot hold exactly.
TEXT_PARTS = "compactcheck_text_parts"
RAW_ARGUMENTS = "compactcheck_raw_arguments"

_SUMMARY_OPEN, _SUMMARY_CLOSE = "<conversation_summary>\n", "\n</conversation_summary>"
_OMISSION = re.compile(
    "^"
    + re.escape(_DEFAULT_OMISSION_NOTE).replace(re.escape(_NUM_REMOVED_PLACEHOLDER), "([0-9]+)")
    + "$"
)
_PRUNED = re.compile(
    "^" + re.escape(_DEFAULT_PLACEHOLDER).replace(re.escape("{tool_name}"), "(.*)") + "$"
)
_OFFLOADED_OPENING = "Tool result offloaded to "
_REFERENCE = re.compile(r" at '([^']*)'")


def _arguments_text(arguments: object) -> str:
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _parsed_arguments(arguments: str) -> tuple[dict[str, Any], bool]:
    """Haystack's arguments for an OpenAI arguments string, and whether they print back exactly."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {}, False
    if not isinstance(parsed, dict):
        return {}, False
    return parsed, _arguments_text(parsed) == arguments


def _texts(content: Any) -> tuple[list[ChatMessageContentT], dict[str, Any]]:
    """Text contents for an OpenAI content, and the meta that says it was a list of parts."""
    if isinstance(content, list):
        return [TextContent(text=part["text"]) for part in content], {TEXT_PARTS: True}
    return [TextContent(text=str(content))], {}


def _note_meta(role: str, text: str) -> dict[str, Any]:
    """The marker Haystack gave a summary or omission note of exactly this text, if any."""
    if role != "user":
        return {}
    if text.startswith(_SUMMARY_OPEN) and text.endswith(_SUMMARY_CLOSE):
        return {_COMPACTION_META_KEY: {"strategy": "summarization"}}
    removed = _OMISSION.match(text)
    if removed is not None:
        marker = {"strategy": "sliding_window", "removed_messages": int(removed.group(1))}
        return {_COMPACTION_META_KEY: marker}
    return {}


def _result_meta(result: str, tool_name: str) -> dict[str, Any]:
    """The marker Haystack gave a pruned or offloaded result of exactly this text, if any."""
    pruned = _PRUNED.match(result)
    if pruned is not None and pruned.group(1) == tool_name:
        return {_COMPACTION_META_KEY: {"strategy": "tool_result_pruning"}}
    if result.startswith(_OFFLOADED_OPENING):
        return {
            _COMPACTION_META_KEY: {"strategy": "tool_result_offloading"},
            _OFFLOADED_META_KEY: _REFERENCE.findall(result),
        }
    return {}


def to_haystack(messages: Sequence[dict[str, Any]]) -> list[ChatMessage]:
    """Haystack chat messages for OpenAI chat dicts."""
    converted: list[ChatMessage] = []
    calls: dict[str, ToolCall] = {}
    for index, message in enumerate(messages):
        role = message["role"]
        name = message.get("name")
        if role in ("system", "user"):
            content, meta = _texts(message["content"])
            if not meta:
                meta = _note_meta(role, str(message["content"]))
            converted.append(
                ChatMessage(_role=ChatRole(role), _content=content, _name=name, _meta=meta)
            )
        elif role == "assistant":
            content, meta = (
                ([], {}) if message.get("content") is None else _texts(message["content"])
            )
            for call in message.get("tool_calls") or []:
                arguments = call["function"]["arguments"]
                parsed, exact = _parsed_arguments(arguments)
                tool_call = ToolCall(
                    tool_name=call["function"]["name"],
                    arguments=parsed,
                    id=call["id"],
                    extra=None if exact else {RAW_ARGUMENTS: arguments},
                )
                calls[call["id"]] = tool_call
                content.append(tool_call)
            converted.append(
                ChatMessage(_role=ChatRole.ASSISTANT, _content=content, _name=name, _meta=meta)
            )
        elif role == "tool":
            ident = message["tool_call_id"]
            # A result whose call is not in the history (input a provider rejects) keeps its
            # id, as Haystack's own from_openai_dict_format does.
            origin = calls.get(ident) or ToolCall(tool_name="", arguments={}, id=ident)
            body = message["content"]
            result: str | list[TextContent] = (
                [TextContent(text=part["text"]) for part in body]
                if isinstance(body, list)
                else str(body)
            )
            meta = _result_meta(result, origin.tool_name) if isinstance(result, str) else {}
            converted.append(ChatMessage.from_tool(tool_result=result, origin=origin, meta=meta))
        else:
            raise ValueError(f"message {index}: unknown role {role!r}")
    return converted


def _content_from_haystack(message: ChatMessage, where: str) -> str | list[dict[str, str]]:
    texts = message.texts
    if message.meta.get(TEXT_PARTS):
        return [{"type": "text", "text": text} for text in texts]
    if len(texts) != 1:
        raise ValueError(f"{where}: expected one text, found {len(texts)}")
    return texts[0]


def _unexpected(message: ChatMessage, where: str) -> None:
    if message.images or message.files or message.reasonings:
        raise ValueError(f"{where}: images, files and reasoning have no place in a chat dict")


def from_haystack(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI chat dicts for Haystack chat messages (Haystack's meta dropped)."""
    converted: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        role = message.role.value
        where = f"message {index} ({role})"
        _unexpected(message, where)
        item: dict[str, Any]
        if message.role in (ChatRole.SYSTEM, ChatRole.USER):
            item = {"role": role, "content": _content_from_haystack(message, where)}
        elif message.role == ChatRole.ASSISTANT:
            item = {"role": "assistant"}
            if message.texts or message.meta.get(TEXT_PARTS):
                item["content"] = _content_from_haystack(message, where)
            if message.tool_calls:
                item["tool_calls"] = [
                    _call_from_haystack(call, where) for call in message.tool_calls
                ]
        elif message.role == ChatRole.TOOL:
            converted.extend(_results_from_haystack(message.tool_call_results, where))
            continue
        else:
            raise ValueError(f"{where}: no OpenAI chat role for this message")
        if message.name is not None:
            item["name"] = message.name
        converted.append(item)
    return converted


def _call_from_haystack(call: ToolCall, where: str) -> dict[str, Any]:
    if call.id is None:
        raise ValueError(f"{where}: a tool call without an id ({call.tool_name})")
    raw = (call.extra or {}).get(RAW_ARGUMENTS)
    return {
        "id": call.id,
        "type": "function",
        "function": {
            "name": call.tool_name,
            "arguments": raw if isinstance(raw, str) else _arguments_text(call.arguments),
        },
    }


def _results_from_haystack(results: Sequence[ToolCallResult], where: str) -> list[dict[str, Any]]:
    converted: list[dict[str, Any]] = []
    for result in results:
        if result.origin.id is None:
            raise ValueError(f"{where}: a tool result without a call id")
        body = result.result
        content: str | list[dict[str, str]]
        if isinstance(body, str):
            content = body
        else:
            content = []
            for block in body:
                if not isinstance(block, TextContent):
                    raise ValueError(f"{where}: a tool result holds {type(block).__name__}")
                content.append({"type": "text", "text": block.text})
        converted.append({"role": "tool", "tool_call_id": result.origin.id, "content": content})
    return converted
