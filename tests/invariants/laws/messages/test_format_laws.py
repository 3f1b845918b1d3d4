"""The provider formats' laws on hand-written requests: what each must and must not flag."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import Facts
from compactcheck.invariants.catalogue import ALL_FORMATS, catalogue
from compactcheck.invariants.formats import parse_request, read
from compactcheck.invariants.formats.gemini import GeminiRequest
from compactcheck.invariants.laws.messages.reading import call_ids

FACTS = Facts(goal="Goal: fix the bug")


def _law(law_id: str) -> Any:
    [law] = [law for law in catalogue("messages", ALL_FORMATS) if law.id == law_id]
    return law


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def _call(name: str, path: str, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": {"path": path}}}
    if signature is not None:
        part["thoughtSignature"] = signature
    return {"role": "model", "parts": [part]}


def _response(name: str) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [{"functionResponse": {"name": name, "response": {"output": "ok"}}}],
    }


def test_gemini_calls_without_ids_keep_their_reading_when_earlier_turns_are_dropped() -> None:
    # The same call made twice; a compaction keeps the first turn and the recent tail. Named
    # from the end, the kept call is the same call in the input's reading and the answer's.
    turns = [
        _user("Goal: fix the bug"),
        _call("read_file", "app.py"),
        _response("read_file"),
        _user("again"),
        _call("read_file", "app.py"),
        _response("read_file"),
    ]
    before = parse_request("gemini", {"contents": turns})
    after = parse_request(
        "gemini", {"contents": [turns[0], _user("Summary: read app.py"), *turns[3:]]}
    )
    assert isinstance(before, GeminiRequest)
    kept = [call_ids(m) for m in read(after) if call_ids(m)]
    assert kept == [call_ids(m) for m in read(before) if call_ids(m)][-1:]
    for law_id in ("order_preserved", "tool_pairing", "gemini_response_follows_call"):
        law = _law(law_id)
        native = bool(law.formats)
        finding = (
            law.check(before, after, FACTS)
            if native
            else law.check(read(before), read(after), FACTS)
        )
        assert finding.holds, (law_id, finding.violations)


def test_a_call_made_signed_and_unsigned_may_come_back_unsigned() -> None:
    turns = [
        _user("Goal: fix the bug"),
        _call("read_file", "app.py", "c2lnbmF0dXJlLW9mLWEtdGhvdWdodA=="),
        _response("read_file"),
        _user("again"),
        _call("read_file", "app.py"),
        _response("read_file"),
    ]
    before = parse_request("gemini", {"contents": turns})
    after = parse_request("gemini", {"contents": [turns[0], *turns[3:]]})
    assert _law("gemini_thought_signature_kept").check(before, after, FACTS).holds
    unsigned = {"role": "model", "parts": [{"functionCall": turns[1]["parts"][0]["functionCall"]}]}
    # Only the signed call was kept, without its signature: that is the provider's error.
    lost = parse_request("gemini", {"contents": [turns[0], unsigned, turns[2]]})
    single = parse_request("gemini", {"contents": turns[:3]})
    assert not _law("gemini_thought_signature_kept").check(single, lost, FACTS).holds


def test_consecutive_user_texts_are_not_taken_for_results_out_of_order() -> None:
    request = parse_request(
        "anthropic",
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Goal: fix the bug"}]},
                {"role": "user", "content": [{"type": "text", "text": "Summary of the rest"}]},
            ]
        },
    )
    assert _law("anthropic_tool_results_first").check(request, request, FACTS).holds


def test_a_note_in_front_of_tool_results_breaks_the_anthropic_order() -> None:
    before = parse_request(
        "anthropic",
        {
            "messages": [
                {"role": "user", "content": "Goal: fix the bug"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
                },
            ]
        },
    )
    data = before.to_json_data()
    data["messages"][2]["content"].insert(0, {"type": "text", "text": "Results:"})
    after = parse_request("anthropic", data)
    finding = _law("anthropic_tool_results_first").check(before, after, FACTS)
    assert [v.because for v in finding.violations] == [
        "messages.2: a text block comes before the turn's tool_result blocks"
        " (they must open the turn)"
    ]
