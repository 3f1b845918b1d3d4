"""Each repair of OpenAI Responses input, on the smallest answer that needs it: it mends its law."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.repair import responses
from tests.compactcheck.observed.repair.pairs import applied, broken, mended

FORMAT: Format = "openai-responses"
GOAL = {"type": "message", "role": "user", "content": "Goal: fix the login bug (AUTH-142)"}
NEXT = {"type": "message", "role": "user", "content": "Go on."}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ZW5jcnlwdGVk"}
SAID = {
    "type": "message",
    "role": "assistant",
    "id": "msg_1",
    "content": [{"type": "output_text", "text": "Reading a.py."}],
}


def call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "read_file", "arguments": "{}"}


def output(call_id: str, text: str = "x = 1") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def request(*items: dict[str, Any]) -> dict[str, Any]:
    return {"instructions": "Rules:\n- Never push to main", "input": list(items)}


HISTORY = request(GOAL, call("f1"), output("f1"), NEXT, call("f2"), output("f2"))


def test_take_out_and_bring_back_for_an_orphaned_output() -> None:
    after = request(GOAL, output("f1"), NEXT, call("f2"), output("f2"))
    law = "responses_output_has_call"
    taken = mended(responses.take_out_orphan_outputs, law, HISTORY, after, FORMAT)
    assert taken.units == [GOAL, NEXT, call("f2"), output("f2")]
    back = mended(responses.bring_back_call_items, law, HISTORY, after, FORMAT)
    assert back.units == HISTORY["input"]


def test_take_out_and_bring_back_for_a_call_without_output() -> None:
    after = request(GOAL, call("f1"), NEXT, call("f2"), output("f2"))
    law = "responses_call_has_output"
    taken = mended(responses.take_out_unanswered_call_items, law, HISTORY, after, FORMAT)
    assert taken.units == [GOAL, NEXT, call("f2"), output("f2")]
    back = mended(responses.bring_back_output_items, law, HISTORY, after, FORMAT)
    assert back.units == HISTORY["input"]


def test_take_out_outputs_without_call_id() -> None:
    after = request(GOAL, call("f1"), {**output("f1"), "call_id": ""}, NEXT)
    side = mended(
        responses.take_out_outputs_without_call_id, "responses_call_id_kept", HISTORY, after, FORMAT
    )
    assert side.units == [GOAL, call("f1"), NEXT]


def test_stranded_reasoning_taken_out_or_followed_again() -> None:
    history = request(GOAL, REASONING, SAID, NEXT)
    after = request(GOAL, REASONING, NEXT)
    law = "responses_reasoning_followed"
    taken = mended(responses.take_out_stranded_reasoning, law, history, after, FORMAT)
    assert taken.units == [GOAL, NEXT]
    back = mended(responses.bring_back_reasoning_followers, law, history, after, FORMAT)
    assert back.units == history["input"]


def test_take_out_repeated_items() -> None:
    history = request(GOAL, REASONING, SAID, NEXT)
    after = request(GOAL, REASONING, SAID, SAID, NEXT)
    side = mended(
        responses.take_out_repeated_items, "responses_item_ids_unique", history, after, FORMAT
    )
    assert side.units == history["input"]


def test_take_out_bad_roles() -> None:
    tool = {"type": "message", "role": "tool", "content": "Summary: a.py read."}
    after = request(GOAL, tool, NEXT, call("f2"), output("f2"))
    side = mended(responses.take_out_bad_roles, "responses_message_roles", HISTORY, after, FORMAT)
    assert tool not in side.units


def test_an_item_that_lost_its_reasoning_gets_it_back_or_loses_its_id() -> None:
    history = request(GOAL, REASONING, SAID, NEXT)
    after = request(GOAL, SAID, NEXT)
    law = "responses_item_keeps_its_reasoning"
    back = mended(responses.bring_back_owning_reasoning, law, history, after, FORMAT)
    assert back.units == history["input"]
    bare = mended(responses.take_out_orphaned_ids, law, history, after, FORMAT)
    assert "id" not in bare.units[1]


def test_take_out_unissued_ids() -> None:
    summary = {"type": "message", "role": "user", "id": "msg_summary", "content": "Summary."}
    history = request(GOAL, REASONING, SAID, NEXT)
    after = request(GOAL, summary, NEXT)
    side = mended(
        responses.take_out_unissued_ids, "responses_item_ids_issued", history, after, FORMAT
    )
    assert side.units[1] == {k: v for k, v in summary.items() if k != "id"}


def test_restore_opaque_items() -> None:
    trimmed = {**REASONING, "encrypted_content": "ZW5jcnlw"}
    history = request(GOAL, REASONING, SAID, NEXT)
    after = request(GOAL, trimmed, SAID, NEXT)
    side = mended(
        responses.restore_opaque_items, "responses_opaque_items_carried", history, after, FORMAT
    )
    assert side.units == history["input"]
    # One the input never had is taken out.
    made_up = {**REASONING, "id": "rs_9", "encrypted_content": "bWFkZS11cA=="}
    edit = applied(
        responses.restore_opaque_items, history, request(GOAL, made_up, SAID, NEXT), FORMAT
    )
    assert edit is not None
    assert made_up not in edit.side.units
    assert "responses_opaque_items_carried" not in broken(history, edit.side.request, FORMAT)
