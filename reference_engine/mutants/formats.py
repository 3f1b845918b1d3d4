"""Broken compactors of the provider formats, one per structural law, each breaking it the way
real ones do (the public reports each law's statement names).

Each is the format's reference compactor (``compactcheck.reference_engine.messages.native``) with
one bug: a cut that ignores the format's units, or an edit of what the reference answers. They take
and return the format's request as JSON data, and are capped at a few messages so that they compact.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from compactcheck.invariants.formats import check_format
from compactcheck.reference_engine.messages.native import NativeReference, summary_item
from compactcheck.reference_engine.mutants.mutant import Mutant

CAP = 6

Request = dict[str, Any]
Edit = Callable[[Request], Request]


def _reference(format: str, cap: int = CAP) -> NativeReference:
    return NativeReference(check_format(format), max_messages=cap)


def _edited(format: str, edit: Edit, cap: int = CAP) -> Callable[[], Callable[[Request], Request]]:
    """A mutant backend: the reference's answer, then ``edit`` on a copy of it."""

    def build() -> Callable[[Request], Request]:
        reference = _reference(format, cap)

        def run(request: Request) -> Request:
            return edit(copy.deepcopy(reference(request)))

        return run

    return build


def _blocks(request: Request) -> Iterator[dict[str, Any]]:
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            yield from content


def _keep_last(field: str, count: int) -> Edit:
    """Keep the history's last ``count`` entries, whatever they pair with."""

    def edit(request: Request) -> Request:
        history = request.get(field, [])
        request[field] = history[-count:]
        return request

    return edit


def _keep_last_n(field: str, count: int) -> Callable[[], Callable[[Request], Request]]:
    def build() -> Callable[[Request], Request]:
        def run(request: Request) -> Request:
            return _keep_last(field, count)(copy.deepcopy(request))

        return run

    return build


# -- Anthropic -----------------------------------------------------------------------------------


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


def _empty_summary() -> Callable[[str, str], dict[str, Any]]:
    def summary(fmt: str, text: str) -> dict[str, Any]:
        del text
        return summary_item(check_format(fmt), "")

    return summary


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


# -- OpenAI Responses ----------------------------------------------------------------------------


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


# -- Gemini --------------------------------------------------------------------------------------


def _drop_one_parallel_response(request: Request) -> Request:
    for content in request["contents"]:
        responses = [p for p in content["parts"] if "functionResponse" in p]
        if len(responses) > 1:
            content["parts"].remove(responses[-1])
    return request


def _summary_as_model(fmt: str, text: str) -> dict[str, Any]:
    del fmt
    return {"role": "model", "parts": [{"text": text}]}


def _summary_as_system(fmt: str, text: str) -> dict[str, Any]:
    del fmt
    return {"role": "system", "parts": [{"text": text}]}


def _renumber_responses(request: Request) -> Request:
    for content in request["contents"]:
        for part in content["parts"]:
            response = part.get("functionResponse")
            if response is not None and "id" in response:
                response["id"] = f"resp-{response['id']}"
    return request


def _strip_signatures(request: Request) -> Request:
    for content in request["contents"]:
        for part in content["parts"]:
            if "functionCall" in part:
                part.pop("thoughtSignature", None)
    return request


def _move_signature(request: Request) -> Request:
    # Merges a signed call turn's parts the careless way: the signature goes to the turn's
    # first part, which is text or a thought, not the call it was on.
    for content in request["contents"]:
        parts = content["parts"]
        signed = [p for p in parts if "functionCall" in p and "thoughtSignature" in p]
        if signed and parts[0] is not signed[0]:
            parts[0]["thoughtSignature"] = signed[0].pop("thoughtSignature")
    return request


def _with_summary(format: str, summary: Callable[[str, str], dict[str, Any]]) -> Callable[[], Any]:
    def build() -> Callable[[Request], Request]:
        reference = NativeReference(check_format(format), max_messages=CAP, summary=summary)
        return lambda request: reference(copy.deepcopy(request))

    return build


def _m(format: str, name: str, law: str, description: str, build: Callable[[], Any]) -> Mutant:
    return Mutant(name, "messages", law, description, build, 16, format=format)


FORMAT_MUTANTS: tuple[Mutant, ...] = (
    _m(
        "anthropic",
        "anthropic-drop-last-results",
        "anthropic_tool_use_answered_next",
        "drops the last turn of tool results, so the history ends on unanswered tool_use",
        _edited("anthropic", _drop_last_results),
    ),
    _m(
        "anthropic",
        "anthropic-keep-last-n",
        "anthropic_tool_result_has_prior_use",
        "keeps the last messages blindly, so a tool_result can open the history",
        _keep_last_n("messages", 3),
    ),
    _m(
        "anthropic",
        "anthropic-note-before-results",
        "anthropic_tool_results_first",
        "writes a note in front of the tool results it keeps",
        _edited("anthropic", _note_before_results),
    ),
    _m(
        "anthropic",
        "anthropic-repeat-last-call",
        "anthropic_tool_use_ids_unique",
        "re-inserts the last tool call and its result, so a tool_use id appears twice",
        _edited("anthropic", _repeat_last_call),
    ),
    _m(
        "anthropic",
        "anthropic-drop-server-tool-use",
        "anthropic_server_tool_result_follows_use",
        "drops server_tool_use blocks as if they were client calls, keeping their results",
        _edited("anthropic", _drop_server_tool_use),
    ),
    _m(
        "anthropic",
        "anthropic-strip-thinking",
        "anthropic_thinking_leads_tool_turn",
        "strips thinking blocks from every turn, the current tool turn too",
        _edited("anthropic", _strip_thinking),
    ),
    _m(
        "anthropic",
        "anthropic-empty-summary",
        "anthropic_nonempty_content",
        "writes an empty summary when the summariser returns nothing",
        _with_summary("anthropic", _empty_summary()),
    ),
    _m(
        "anthropic",
        "anthropic-cache-everything",
        "anthropic_cache_control_limit",
        "marks every text block for prompt caching",
        _edited("anthropic", _cache_everything),
    ),
    _m(
        "anthropic",
        "anthropic-edit-thinking",
        "anthropic_thinking_unmodified",
        "condenses the thinking blocks it keeps",
        _edited("anthropic", _edit_thinking),
    ),
    _m(
        "anthropic",
        "anthropic-trim-redacted",
        "anthropic_opaque_blocks_carried",
        "trims the data of redacted thinking blocks",
        _edited("anthropic", _trim_redacted),
    ),
    _m(
        "anthropic",
        "anthropic-keep-thinking-only",
        "anthropic_thinking_not_last_block",
        "drops an assistant turn's text and calls but keeps its thinking",
        _edited("anthropic", _keep_thinking_only),
    ),
    _m(
        "openai-responses",
        "responses-keep-last-n",
        "responses_output_has_call",
        "keeps the last items blindly, so an output can lose its call",
        _keep_last_n("input", 3),
    ),
    _m(
        "openai-responses",
        "responses-drop-last-output",
        "responses_call_has_output",
        "drops the last function call output, keeping its call",
        _edited("openai-responses", _drop_last_output),
    ),
    _m(
        "openai-responses",
        "responses-truncate-outputs",
        "responses_call_id_kept",
        "truncates function call outputs by rebuilding them without their call_id",
        _edited("openai-responses", _outputs_without_call_id),
    ),
    _m(
        "openai-responses",
        "responses-drop-messages-keep-reasoning",
        "responses_reasoning_followed",
        "drops assistant messages but keeps the reasoning items before them",
        _edited("openai-responses", _drop_messages_after_reasoning),
    ),
    _m(
        "openai-responses",
        "responses-drop-reasoning",
        "responses_item_keeps_its_reasoning",
        "drops reasoning items but keeps the ids of the items they produced",
        _edited("openai-responses", _drop_reasoning),
    ),
    _m(
        "openai-responses",
        "responses-repeat-message",
        "responses_item_ids_unique",
        "re-inserts the last assistant message, id and all",
        _edited("openai-responses", _repeat_last_item_with_id),
    ),
    _m(
        "openai-responses",
        "responses-summary-with-id",
        "responses_item_ids_issued",
        "gives its summary message an id of its own making",
        _with_summary("openai-responses", _summary_with_id),
    ),
    _m(
        "openai-responses",
        "responses-trim-encrypted",
        "responses_opaque_items_carried",
        "trims the encrypted content of reasoning items",
        _edited("openai-responses", _trim_encrypted),
    ),
    _m(
        "openai-responses",
        "responses-summary-as-tool",
        "responses_message_roles",
        "writes its summary as a chat-completions tool message",
        _with_summary("openai-responses", _summary_as_tool),
    ),
    _m(
        "gemini",
        "gemini-drop-parallel-response",
        "gemini_response_count_matches_calls",
        "keeps one response of each parallel call turn fewer than it has calls",
        _edited("gemini", _drop_one_parallel_response),
    ),
    _m(
        "gemini",
        "gemini-summary-as-model",
        "gemini_call_follows_user_or_response",
        "writes its summary as a model turn, right before a function call turn",
        _with_summary("gemini", _summary_as_model),
    ),
    _m(
        "gemini",
        "gemini-keep-last-n",
        "gemini_response_follows_call",
        "keeps the last turns blindly, so a function response turn can open the history",
        _keep_last_n("contents", 3),
    ),
    _m(
        "gemini",
        "gemini-empty-summary",
        "gemini_nonempty_parts",
        "writes an empty summary part when the summariser returns nothing",
        _with_summary("gemini", _empty_summary()),
    ),
    _m(
        "gemini",
        "gemini-summary-as-system",
        "gemini_roles_user_model",
        "writes its summary as a system turn inside contents",
        _with_summary("gemini", _summary_as_system),
    ),
    _m(
        "gemini",
        "gemini-renumber-responses",
        "gemini_function_response_id_matches",
        "renumbers the function responses it keeps",
        _edited("gemini", _renumber_responses),
    ),
    _m(
        "gemini",
        "gemini-strip-signatures",
        "gemini_thought_signature_kept",
        "strips thought signatures from the calls it keeps",
        _edited("gemini", _strip_signatures),
    ),
    _m(
        "gemini",
        "gemini-move-signature",
        "gemini_signatures_carried",
        "moves a call's thought signature to the first part of its turn",
        _edited("gemini", _move_signature),
    ),
)
