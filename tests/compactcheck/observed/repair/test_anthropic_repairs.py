"""Each repair of Anthropic Messages, on the smallest answer that needs it: it mends its law."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.repair import anthropic_blocks, anthropic_pairing, anthropic_server
from tests.compactcheck.observed.repair.pairs import applied, broken, mended

FORMAT: Format = "anthropic"
SYSTEM = "You are a coding agent.\nRules:\n- Never push to main"
GOAL = {"role": "user", "content": "Goal: fix the login bug (AUTH-142)"}
NEXT = {"role": "user", "content": "Go on."}
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS10aGlua2luZy1ibG9jaw=="
THINKING = {"type": "thinking", "thinking": "Read the file first.", "signature": SIGNATURE}


def use(call_id: str, *lead: dict[str, Any]) -> dict[str, Any]:
    """An assistant message calling read_file, after the blocks ``lead``."""
    block = {"type": "tool_use", "id": call_id, "name": "read_file", "input": {"path": "a.py"}}
    return {"role": "assistant", "content": [*lead, block]}


def answer(*ids: str) -> dict[str, Any]:
    """A user message answering the calls ``ids``."""
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": i, "content": "x = 1"} for i in ids],
    }


def request(*messages: dict[str, Any], thinking: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {"system": SYSTEM, "messages": list(messages)}
    if thinking:
        data["thinking"] = {"type": "enabled", "budget_tokens": 2048}
    return data


HISTORY = request(GOAL, use("t1"), answer("t1"), NEXT, use("t2"), answer("t2"))


def test_take_out_orphan_tool_results() -> None:
    after = request(GOAL, answer("t1"), NEXT, use("t2"), answer("t2"))
    side = mended(
        anthropic_pairing.take_out_orphan_tool_results,
        "anthropic_tool_result_has_prior_use",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units == [GOAL, NEXT, use("t2"), answer("t2")]


def test_bring_back_tool_uses() -> None:
    after = request(GOAL, answer("t1"), NEXT, use("t2"), answer("t2"))
    side = mended(
        anthropic_pairing.bring_back_tool_uses,
        "anthropic_tool_result_has_prior_use",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units == HISTORY["messages"]


def test_take_out_unanswered_tool_uses() -> None:
    after = request(GOAL, use("t1"), NEXT, use("t2"), answer("t2"))
    side = mended(
        anthropic_pairing.take_out_unanswered_tool_uses,
        "anthropic_tool_use_answered_next",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units == [GOAL, NEXT, use("t2"), answer("t2")]


def test_bring_back_tool_results_at_the_front_of_the_next_user_message() -> None:
    after = request(GOAL, use("t1"), NEXT, use("t2"), answer("t2"))
    side = mended(
        anthropic_pairing.bring_back_tool_results,
        "anthropic_tool_use_answered_next",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units[2]["content"] == [
        *answer("t1")["content"],
        {"type": "text", "text": "Go on."},
    ]
    # With no user message next, in a message of their own.
    last = request(GOAL, use("t1"), answer("t1"), NEXT, use("t2"))
    alone = mended(
        anthropic_pairing.bring_back_tool_results,
        "anthropic_tool_use_answered_next",
        HISTORY,
        last,
        FORMAT,
    )
    assert alone.units[-1] == answer("t2")


def test_take_out_notes_before_results_and_move_results_first() -> None:
    note = {"type": "text", "text": "Tool output follows."}
    noted = {"role": "user", "content": [note, *answer("t2")["content"]]}
    after = request(GOAL, use("t2"), noted)
    history = request(GOAL, use("t2"), answer("t2"))
    taken = mended(
        anthropic_pairing.take_out_notes_before_results,
        "anthropic_tool_results_first",
        history,
        after,
        FORMAT,
    )
    assert taken.units[-1] == answer("t2")
    moved = applied(anthropic_pairing.move_tool_results_first, history, after, FORMAT)
    assert moved is not None
    assert moved.side.units[-1]["content"][-1] == note
    assert "anthropic_tool_results_first" not in broken(history, moved.side.request, FORMAT)


def test_take_out_repeated_tool_uses() -> None:
    after = request(GOAL, use("t2"), answer("t2"), use("t2"), answer("t2"))
    history = request(GOAL, use("t2"), answer("t2"))
    side = mended(
        anthropic_pairing.take_out_repeated_tool_uses,
        "anthropic_tool_use_ids_unique",
        history,
        after,
        FORMAT,
    )
    assert side.units == history["messages"]


SEARCH = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}}
FOUND = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}
SAID = {"type": "text", "text": "Found it."}


def test_take_out_and_bring_back_stray_server_blocks() -> None:
    history = request(GOAL, {"role": "assistant", "content": [SEARCH, FOUND, SAID]}, NEXT)
    after = request(GOAL, {"role": "assistant", "content": [FOUND, SAID]}, NEXT)
    law = "anthropic_server_tool_result_follows_use"
    taken = mended(anthropic_server.take_out_stray_server_blocks, law, history, after, FORMAT)
    assert taken.units[1]["content"] == [SAID]
    back = mended(anthropic_server.bring_back_server_blocks, law, history, after, FORMAT)
    assert back.units[1]["content"] == [SEARCH, FOUND, SAID]


def test_take_out_trailing_thinking_and_restore_the_turn() -> None:
    history = request(GOAL, use("t1", THINKING), answer("t1"), NEXT, thinking=True)
    after = request(GOAL, {"role": "assistant", "content": [THINKING]}, NEXT, thinking=True)
    law = "anthropic_thinking_not_last_block"
    taken = mended(anthropic_blocks.take_out_trailing_thinking, law, history, after, FORMAT)
    assert taken.units == [GOAL, NEXT]
    restored = applied(anthropic_blocks.restore_thinking_turns, history, after, FORMAT)
    assert restored is not None
    assert restored.side.units[1] == use("t1", THINKING)


def test_bring_back_leading_thinking_of_the_tool_turn() -> None:
    history = request(GOAL, use("t1", THINKING), answer("t1"), thinking=True)
    after = request(GOAL, use("t1"), answer("t1"), thinking=True)
    side = mended(
        anthropic_blocks.bring_back_leading_thinking,
        "anthropic_thinking_leads_tool_turn",
        history,
        after,
        FORMAT,
    )
    assert side.units[1] == use("t1", THINKING)


def test_restore_thinking_blocks_puts_the_signed_text_back() -> None:
    edited = {**THINKING, "thinking": "Read the file first. (condensed)"}
    history = request(GOAL, use("t1", THINKING), answer("t1"), thinking=True)
    after = request(GOAL, use("t1", edited), answer("t1"), thinking=True)
    side = mended(
        anthropic_blocks.restore_thinking_blocks,
        "anthropic_thinking_unmodified",
        history,
        after,
        FORMAT,
    )
    assert side.units == history["messages"]


def test_take_out_edited_opaque_blocks() -> None:
    redacted = {"type": "redacted_thinking", "data": "ZW5jcnlwdGVkLXRoaW5raW5nLWRhdGE="}
    trimmed = {**redacted, "data": redacted["data"][:-4]}
    history = request(GOAL, {"role": "assistant", "content": [redacted, SAID]}, NEXT)
    after = request(GOAL, {"role": "assistant", "content": [trimmed, SAID]}, NEXT)
    side = mended(
        anthropic_blocks.take_out_edited_opaque_blocks,
        "anthropic_opaque_blocks_carried",
        history,
        after,
        FORMAT,
    )
    assert side.units[1]["content"] == [SAID]


def test_take_out_empty_content() -> None:
    empty = {"role": "user", "content": [{"type": "text", "text": ""}]}
    after = request(GOAL, empty, use("t2"), answer("t2"))
    side = mended(
        anthropic_blocks.take_out_empty_content,
        "anthropic_nonempty_content",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units == [GOAL, use("t2"), answer("t2")]


def test_take_out_cache_marks_past_the_limit() -> None:
    mark = {"cache_control": {"type": "ephemeral"}}
    texts = [
        {"role": "user", "content": [{"type": "text", "text": f"n{n}", **mark}]} for n in range(5)
    ]
    history = request(GOAL, *texts[:1], NEXT)
    after = request(GOAL, *texts, NEXT)
    side = mended(
        anthropic_blocks.take_out_cache_marks,
        "anthropic_cache_control_limit",
        history,
        after,
        FORMAT,
    )
    marked = [
        b for m in side.units for b in m["content"] if isinstance(b, dict) and "cache_control" in b
    ]
    assert len(marked) == 4
    # The input's own mark stays.
    assert side.units[1] == texts[0]
