"""Broken compactors of Gemini contents, one per structural law of the format."""

from __future__ import annotations

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


MUTANTS: tuple[Mutant, ...] = (
    format_mutant(
        "gemini",
        "gemini-drop-parallel-response",
        "gemini_response_count_matches_calls",
        "keeps one response of each parallel call turn fewer than it has calls",
        edited("gemini", _drop_one_parallel_response),
    ),
    format_mutant(
        "gemini",
        "gemini-summary-as-model",
        "gemini_call_follows_user_or_response",
        "writes its summary as a model turn, right before a function call turn",
        with_summary("gemini", _summary_as_model),
    ),
    format_mutant(
        "gemini",
        "gemini-keep-last-n",
        "gemini_response_follows_call",
        "keeps the last turns blindly, so a function response turn can open the history",
        keep_last_n("contents", 3),
    ),
    format_mutant(
        "gemini",
        "gemini-empty-summary",
        "gemini_nonempty_parts",
        "writes an empty summary part when the summariser returns nothing",
        with_summary("gemini", empty_summary()),
    ),
    format_mutant(
        "gemini",
        "gemini-summary-as-system",
        "gemini_roles_user_model",
        "writes its summary as a system turn inside contents",
        with_summary("gemini", _summary_as_system),
    ),
    format_mutant(
        "gemini",
        "gemini-renumber-responses",
        "gemini_function_response_id_matches",
        "renumbers the function responses it keeps",
        edited("gemini", _renumber_responses),
    ),
    format_mutant(
        "gemini",
        "gemini-strip-signatures",
        "gemini_thought_signature_kept",
        "strips thought signatures from the calls it keeps",
        edited("gemini", _strip_signatures),
    ),
    format_mutant(
        "gemini",
        "gemini-move-signature",
        "gemini_signatures_carried",
        "moves a call's thought signature to the first part of its turn",
        edited("gemini", _move_signature),
    ),
)
