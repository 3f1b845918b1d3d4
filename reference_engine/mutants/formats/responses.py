"""Broken compactors of OpenAI Responses input, one per structural law of the format."""

from __future__ import annotations

import copy
from typing import Any

from compactcheck.invariants.formats import check_format
from compactcheck.reference_engine.messages.native import summary_item
from compactcheck.reference_engine.mutants.formats.builders import (
    Request,
    edited,
    format_mutant,
    keep_last_n,
    with_summary,
)
from compactcheck.reference_engine.mutants.mutant import Mutant


def _drop_last_output(request: Request) -> Request:
    items = request["input"]
    for index in range(len(items) - 1, -1, -1):
        if items[index].get("type") == "function_call_output":
            del items[index]
            break
    return request


def _outputs_without_call_id(request: Request) -> Request:
    for item in request["input"]:
        if item.get("type") == "function_call_output":
            item["output"] = str(item.get("output", ""))[:40]
            item["call_id"] = ""
    return request


def _drop_messages_after_reasoning(request: Request) -> Request:
    items = request["input"]
    kept = []
    for index, item in enumerate(items):
        after_reasoning = index > 0 and items[index - 1].get("type") == "reasoning"
        if after_reasoning and item.get("type") == "message":
            continue
        kept.append(item)
    request["input"] = kept
    return request


def _drop_reasoning(request: Request) -> Request:
    request["input"] = [item for item in request["input"] if item.get("type") != "reasoning"]
    return request


def _repeat_last_item_with_id(request: Request) -> Request:
    items = request["input"]
    for index in range(len(items) - 1, -1, -1):
        if items[index].get("id") and items[index].get("type") == "message":
            items.insert(index + 1, copy.deepcopy(items[index]))
            break
    return request


def _summary_with_id(fmt: str, text: str) -> dict[str, Any]:
    item = summary_item(check_format(fmt), text)
    item["id"] = "msg_summary"
    return item


def _trim_encrypted(request: Request) -> Request:
    for item in request["input"]:
        if item.get("type") == "reasoning" and item.get("encrypted_content"):
            item["encrypted_content"] = item["encrypted_content"][:-8]
    return request


def _summary_as_tool(fmt: str, text: str) -> dict[str, Any]:
    del fmt
    return {"type": "message", "role": "tool", "content": text}


MUTANTS: tuple[Mutant, ...] = (
    format_mutant(
        "openai-responses",
        "responses-keep-last-n",
        "responses_output_has_call",
        "keeps the last items blindly, so an output can lose its call",
        keep_last_n("input", 3),
    ),
    format_mutant(
        "openai-responses",
        "responses-drop-last-output",
        "responses_call_has_output",
        "drops the last function call output, keeping its call",
        edited("openai-responses", _drop_last_output),
    ),
    format_mutant(
        "openai-responses",
        "responses-truncate-outputs",
        "responses_call_id_kept",
        "truncates function call outputs by rebuilding them without their call_id",
        edited("openai-responses", _outputs_without_call_id),
    ),
    format_mutant(
        "openai-responses",
        "responses-drop-messages-keep-reasoning",
        "responses_reasoning_followed",
        "drops assistant messages but keeps the reasoning items before them",
        edited("openai-responses", _drop_messages_after_reasoning),
    ),
    format_mutant(
        "openai-responses",
        "responses-drop-reasoning",
        "responses_item_keeps_its_reasoning",
        "drops reasoning items but keeps the ids of the items they produced",
        edited("openai-responses", _drop_reasoning),
    ),
    format_mutant(
        "openai-responses",
        "responses-repeat-message",
        "responses_item_ids_unique",
        "re-inserts the last assistant message, id and all",
        edited("openai-responses", _repeat_last_item_with_id),
    ),
    format_mutant(
        "openai-responses",
        "responses-summary-with-id",
        "responses_item_ids_issued",
        "gives its summary message an id of its own making",
        with_summary("openai-responses", _summary_with_id),
    ),
    format_mutant(
        "openai-responses",
        "responses-trim-encrypted",
        "responses_opaque_items_carried",
        "trims the encrypted content of reasoning items",
        edited("openai-responses", _trim_encrypted),
    ),
    format_mutant(
        "openai-responses",
        "responses-summary-as-tool",
        "responses_message_roles",
        "writes its summary as a chat-completions tool message",
        with_summary("openai-responses", _summary_as_tool),
    ),
)
