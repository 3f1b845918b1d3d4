"""Broken compactors of Anthropic Messages, one per structural law of the format."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from compactcheck.reference_engine.mutants.formats.builders import (
    Request,
    edited,
    empty_summary,
    format_mutant,
    keep_last_n,
    with_summary,
)
from compactcheck.reference_engine.mutants.mutant import Mutant


def _blocks(request: Request) -> Iterator[dict[str, Any]]:
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            yield from content


def _has(content: Any, kind: str) -> bool:
    return isinstance(content, list) and any(block.get("type") == kind for block in content)


def _drop_last_results(request: Request) -> Request:
    # Drops the last turn of tool results, keeping the calls they answered (a history ending on
    # a tool_use, as a compactor that trims "the latest tool output" does).
    messages = request["messages"]
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "user" and _has(
            messages[index].get("content"), "tool_result"
        ):
            del messages[index]
            break
    return request


def _note_before_results(request: Request) -> Request:
    for message in request["messages"]:
        content = message.get("content")
        if message["role"] == "user" and _has(content, "tool_result"):
            content.insert(0, {"type": "text", "text": "Tool output follows."})
    return request


def _repeat_last_call(request: Request) -> Request:
    messages = request["messages"]
    for index in range(len(messages) - 2, -1, -1):
        if messages[index]["role"] == "assistant" and _has(
            messages[index].get("content"), "tool_use"
        ):
            messages[index + 2 : index + 2] = copy.deepcopy(messages[index : index + 2])
            break
    return request


def _drop_server_tool_use(request: Request) -> Request:
    for message in request["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            message["content"] = [b for b in content if b.get("type") != "server_tool_use"]
    return request


def _strip_thinking(request: Request) -> Request:
    for message in request["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            kept = [b for b in content if b.get("type") not in ("thinking", "redacted_thinking")]
            message["content"] = kept or [{"type": "text", "text": "(thinking removed)"}]
    return request


def _cache_everything(request: Request) -> Request:
    for block in _blocks(request):
        if block.get("type") == "text":
            block["cache_control"] = {"type": "ephemeral"}
    return request


def _edit_thinking(request: Request) -> Request:
    for block in _blocks(request):
        if block.get("type") == "thinking":
            block["thinking"] = block["thinking"] + " (condensed)"
    return request


def _trim_redacted(request: Request) -> Request:
    for block in _blocks(request):
        if block.get("type") == "redacted_thinking":
            block["data"] = block["data"][:-8]
    return request


def _keep_thinking_only(request: Request) -> Request:
    # Drops what an assistant turn said and called but keeps its thinking, as a pruner of "old
    # text" that treats thinking as opaque does.
    for message in request["messages"]:
        content = message.get("content")
        if message["role"] == "assistant" and _has(content, "thinking"):
            message["content"] = [b for b in content if b.get("type") == "thinking"]
    return request


MUTANTS: tuple[Mutant, ...] = (
    format_mutant(
        "anthropic",
        "anthropic-drop-last-results",
        "anthropic_tool_use_answered_next",
        "drops the last turn of tool results, so the history ends on unanswered tool_use",
        edited("anthropic", _drop_last_results),
    ),
    format_mutant(
        "anthropic",
        "anthropic-keep-last-n",
        "anthropic_tool_result_has_prior_use",
        "keeps the last messages blindly, so a tool_result can open the history",
        keep_last_n("messages", 3),
    ),
    format_mutant(
        "anthropic",
        "anthropic-note-before-results",
        "anthropic_tool_results_first",
        "writes a note in front of the tool results it keeps",
        edited("anthropic", _note_before_results),
    ),
    format_mutant(
        "anthropic",
        "anthropic-repeat-last-call",
        "anthropic_tool_use_ids_unique",
        "re-inserts the last tool call and its result, so a tool_use id appears twice",
        edited("anthropic", _repeat_last_call),
    ),
    format_mutant(
        "anthropic",
        "anthropic-drop-server-tool-use",
        "anthropic_server_tool_result_follows_use",
        "drops server_tool_use blocks as if they were client calls, keeping their results",
        edited("anthropic", _drop_server_tool_use),
    ),
    format_mutant(
        "anthropic",
        "anthropic-strip-thinking",
        "anthropic_thinking_leads_tool_turn",
        "strips thinking blocks from every turn, the current tool turn too",
        edited("anthropic", _strip_thinking),
    ),
    format_mutant(
        "anthropic",
        "anthropic-empty-summary",
        "anthropic_nonempty_content",
        "writes an empty summary when the summariser returns nothing",
        with_summary("anthropic", empty_summary()),
    ),
    format_mutant(
        "anthropic",
        "anthropic-cache-everything",
        "anthropic_cache_control_limit",
        "marks every text block for prompt caching",
        edited("anthropic", _cache_everything),
    ),
    format_mutant(
        "anthropic",
        "anthropic-edit-thinking",
        "anthropic_thinking_unmodified",
        "condenses the thinking blocks it keeps",
        edited("anthropic", _edit_thinking),
    ),
    format_mutant(
        "anthropic",
        "anthropic-trim-redacted",
        "anthropic_opaque_blocks_carried",
        "trims the data of redacted thinking blocks",
        edited("anthropic", _trim_redacted),
    ),
    format_mutant(
        "anthropic",
        "anthropic-keep-thinking-only",
        "anthropic_thinking_not_last_block",
        "drops an assistant turn's text and calls but keeps its thinking",
        edited("anthropic", _keep_thinking_only),
    ),
)
