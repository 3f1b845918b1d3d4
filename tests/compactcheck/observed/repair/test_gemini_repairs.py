"""Each repair of Gemini contents, on the smallest answer that needs it: it mends its law."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.repair import gemini, gemini_parts
from tests.compactcheck.observed.repair.pairs import mended

FORMAT: Format = "gemini"
GOAL = {"role": "user", "parts": [{"text": "Goal: fix the login bug (AUTH-142)"}]}
NEXT = {"role": "user", "parts": [{"text": "Go on."}]}
SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1jYWxs"


def calls(*ids: str, signed: bool = False) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [
        {"functionCall": {"name": "read_file", "args": {"path": f"{i}.py"}, "id": i}} for i in ids
    ]
    if signed:
        parts[0] = {**parts[0], "thoughtSignature": SIGNATURE}
    return {"role": "model", "parts": parts}


def answers(*ids: str) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "ok"}, "id": i}}
            for i in ids
        ],
    }


def request(*contents: dict[str, Any]) -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "Rules:\n- Never push to main"}]},
        "contents": list(contents),
    }


HISTORY = request(GOAL, calls("a", "b"), answers("a", "b"), NEXT)


def test_a_call_turn_answered_short() -> None:
    after = request(GOAL, calls("a", "b"), answers("a"), NEXT)
    law = "gemini_response_count_matches_calls"
    back = mended(gemini.bring_back_function_responses, law, HISTORY, after, FORMAT)
    assert back.units == HISTORY["contents"]
    taken = mended(gemini.take_out_unanswered_function_calls, law, HISTORY, after, FORMAT)
    assert taken.units[1] == calls("a")


def test_a_call_turn_after_a_model_turn() -> None:
    summary = {"role": "model", "parts": [{"text": "Summary: reading files."}]}
    history = request(GOAL, NEXT, calls("a", "b"), answers("a", "b"))
    after = request(GOAL, summary, calls("a", "b"), answers("a", "b"))
    law = "gemini_call_follows_user_or_response"
    taken = mended(gemini.take_out_turns_before_calls, law, history, after, FORMAT)
    assert taken.units == [GOAL, calls("a", "b"), answers("a", "b")]
    back = mended(gemini.bring_back_turns_before_calls, law, history, after, FORMAT)
    assert back.units == [GOAL, summary, NEXT, calls("a", "b"), answers("a", "b")]


def test_a_response_turn_without_its_call_turn() -> None:
    after = request(GOAL, answers("a", "b"), NEXT)
    law = "gemini_response_follows_call"
    taken = mended(gemini.take_out_orphan_responses, law, HISTORY, after, FORMAT)
    assert taken.units == [GOAL, NEXT]
    back = mended(gemini.bring_back_function_calls, law, HISTORY, after, FORMAT)
    assert back.units == HISTORY["contents"]


def test_take_out_empty_parts() -> None:
    after = request(GOAL, {"role": "user", "parts": [{"text": ""}]}, NEXT)
    side = mended(gemini.take_out_empty_parts, "gemini_nonempty_parts", HISTORY, after, FORMAT)
    assert side.units == [GOAL, NEXT]


def test_take_out_bad_role_turns() -> None:
    system = {"role": "system", "parts": [{"text": "Summary."}]}
    after = request(GOAL, system, NEXT)
    side = mended(gemini.take_out_bad_role_turns, "gemini_roles_user_model", HISTORY, after, FORMAT)
    assert side.units == [GOAL, NEXT]


def test_restore_function_responses() -> None:
    renumbered = answers("a", "b")
    renumbered["parts"][1]["functionResponse"]["id"] = "resp-b"
    after = request(GOAL, calls("a", "b"), renumbered, NEXT)
    side = mended(
        gemini_parts.restore_function_responses,
        "gemini_function_response_id_matches",
        HISTORY,
        after,
        FORMAT,
    )
    assert side.units == HISTORY["contents"]


def test_restore_thought_signatures() -> None:
    history = request(GOAL, calls("a", "b", signed=True), answers("a", "b"), NEXT)
    after = request(GOAL, calls("a", "b"), answers("a", "b"), NEXT)
    side = mended(
        gemini_parts.restore_thought_signatures,
        "gemini_thought_signature_kept",
        history,
        after,
        FORMAT,
    )
    assert side.units == history["contents"]


def test_take_out_moved_signatures() -> None:
    said = {"text": "Reading both files."}
    history = request(GOAL, {"role": "model", "parts": [said, *calls("a", signed=True)["parts"]]},
                      answers("a"), NEXT)  # fmt: skip
    moved = {
        "role": "model",
        "parts": [{**said, "thoughtSignature": SIGNATURE}, *calls("a")["parts"]],
    }
    after = request(GOAL, moved, answers("a"), NEXT)
    side = mended(
        gemini_parts.take_out_moved_signatures,
        "gemini_signatures_carried",
        history,
        after,
        FORMAT,
    )
    assert "thoughtSignature" not in side.units[1]["parts"][0]
