"""The marks of a witness's conversation, on hand-made input and output pairs."""

from __future__ import annotations

from typing import Any

from compactcheck.render.conversation import (
    Conversation,
    EventList,
    conversation,
    picture,
)

SYSTEM = {"role": "system", "content": "You are careful."}
GOAL = {"role": "user", "content": "Goal: fix the login bug"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    ],
}
RESULT = {"role": "tool", "tool_call_id": "t1", "content": "def login(): ..."}
NEXT = {"role": "user", "content": "go on"}
SUMMARY = {"role": "user", "content": "Summary: the agent read login.py"}


def chat(before: list[Any], after: list[Any]) -> Conversation:
    found = conversation({"messages": before, "knobs": [0, 1]}, {"messages": after})
    assert found is not None
    return found


def marks(bubbles: tuple[Any, ...]) -> list[tuple[str, str, bool]]:
    return [(b.role, b.mark, b.orphaned) for b in bubbles]


def test_a_sliding_window_keeps_the_tail_and_drops_the_head() -> None:
    seen = chat([SYSTEM, GOAL, CALL, RESULT, NEXT], [SYSTEM, CALL, RESULT, NEXT])
    assert seen.format == "openai-chat"
    assert marks(seen.before) == [
        ("system", "kept", False),
        ("user", "dropped", False),
        ("assistant", "kept", False),
        ("tool", "kept", False),
        ("user", "kept", False),
    ]
    assert marks(seen.after) == [(m[0], "kept", False) for m in marks(seen.after)]


def test_a_summary_is_new_in_the_output() -> None:
    seen = chat([SYSTEM, GOAL, NEXT], [SYSTEM, SUMMARY, NEXT])
    assert [b.mark for b in seen.before] == ["kept", "dropped", "kept"]
    assert [b.mark for b in seen.after] == ["kept", "summarised", "kept"]
    assert seen.after[1].text == SUMMARY["content"]


def test_a_result_without_its_call_is_orphaned_in_the_output_only() -> None:
    seen = chat([SYSTEM, GOAL, CALL, RESULT, NEXT], [SYSTEM, RESULT, NEXT])
    assert marks(seen.after) == [
        ("system", "kept", False),
        ("tool", "kept", True),
        ("user", "kept", False),
    ]
    # In the input the same result had its call: joined both ways, nothing orphaned.
    assert not any(b.orphaned for b in seen.before)
    (call,) = seen.before[2].calls
    assert (call.id, call.name, call.result) == ("t1", "read", 3)
    assert seen.before[3].answers == "t1"
    assert seen.before[3].call_at == 2
    assert seen.after[1].call_at is None


def test_a_call_whose_result_was_dropped_is_orphaned() -> None:
    seen = chat([GOAL, CALL, RESULT, NEXT], [CALL, NEXT])
    assert seen.after[0].orphaned
    assert seen.after[0].calls[0].result is None
    assert [b.mark for b in seen.before] == ["dropped", "kept", "dropped", "kept"]


def test_a_message_repeated_and_kept_once_is_matched_once() -> None:
    seen = chat([NEXT, NEXT], [NEXT])
    assert [b.mark for b in seen.before] == ["kept", "dropped"]


def test_an_edited_message_is_dropped_and_its_edit_new() -> None:
    shortened = {**RESULT, "content": "[pruned]"}
    seen = chat([CALL, RESULT], [CALL, shortened])
    assert [b.mark for b in seen.before] == ["kept", "dropped"]
    assert [b.mark for b in seen.after] == ["kept", "summarised"]
    assert not seen.after[1].orphaned, "the pruned result still answers its call"


def test_gemini_contents_are_read_as_the_laws_read_them() -> None:
    call: dict[str, Any] = {
        "role": "model",
        "parts": [{"functionCall": {"id": "g1", "name": "ls", "args": {}}}],
    }
    answer: dict[str, Any] = {
        "role": "user",
        "parts": [{"functionResponse": {"id": "g1", "name": "ls", "response": {"out": "a"}}}],
    }
    goal: dict[str, Any] = {"role": "user", "parts": [{"text": "Goal: list"}]}
    data: dict[str, Any] = {
        "format": "gemini",
        "request": {"contents": [goal, call, answer]},
        "knobs": [],
    }
    seen = conversation(data, {"request": {"contents": [answer]}}, "gemini")
    assert seen is not None
    assert seen.format == "gemini"
    assert [(b.role, b.mark) for b in seen.before] == [
        ("user", "dropped"),
        ("assistant", "dropped"),
        ("tool", "kept"),
    ]
    assert seen.after[0].answers == "g1"
    assert seen.after[0].orphaned


def test_anthropic_requests_are_read_with_their_knobs_beside_them() -> None:
    use: dict[str, Any] = {"type": "tool_use", "id": "a1", "name": "ls", "input": {}}
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "a1", "content": "x"}
    before: list[Any] = [
        {"role": "user", "content": "Goal: list"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result]},
    ]
    seen = conversation(
        {"system": "s", "messages": before, "knobs": [1]},
        {"system": "s", "messages": before[2:]},
        "anthropic",
    )
    assert seen is not None
    assert [(b.role, b.mark, b.orphaned) for b in seen.after] == [
        ("system", "kept", False),
        ("tool", "kept", True),
    ]


def test_a_shape_that_is_not_a_conversation_gives_none() -> None:
    assert conversation({"messages": [{"role": "wizard"}]}, {"messages": []}) is None
    assert conversation(None, None) is None
    assert conversation([1, 2], {"messages": []}) is None
    assert picture("elsewhere", {}, {}) is None


def _event(event_id: str, kind: str = "user_input", text: str = "hi") -> dict[str, Any]:
    return {"eventId": event_id, "sequence": 1, "type": kind, "payload": {"text": text}}


def test_snapshot_events_are_kept_by_event_id_in_the_raw_tail() -> None:
    data: dict[str, Any] = {
        "state": {},
        "events": [_event("e1"), _event("e2", "file_changed", "a.py")],
    }
    answer: dict[str, Any] = {
        "snapshot": {"goal": "g"},
        "rawTail": [_event("e2", "file_changed", "a.py")],
    }
    seen = picture("snapshot", data, answer)
    assert isinstance(seen, EventList)
    assert [(e.key, e.kind, e.text, e.mark) for e in seen.before] == [
        ("e1", "user_input", "hi", "dropped"),
        ("e2", "file_changed", "a.py", "kept"),
    ]
    assert [e.key for e in seen.after] == ["e2"]


def test_snapshot_without_a_raw_tail_marks_nothing() -> None:
    seen = picture("snapshot", {"events": [_event("e1")]}, {"snapshot": {}})
    assert isinstance(seen, EventList)
    assert [e.mark for e in seen.before] == [None]
    assert picture("snapshot", {"state": {}}, {}) is None


def test_session_records_covered_by_an_appended_summary() -> None:
    log: list[Any] = [
        {"type": "message", "seq": 0, "time": 0, "data": {"text": "hello"}},
        {"type": "message", "seq": 1, "time": 1, "data": {"text": "again"}},
    ]
    appended: list[Any] = [
        {"type": "compaction", "seq": 2, "time": 2, "data": {"summary": "s"},
         "sourceEventSeqs": [0]},
    ]  # fmt: skip
    seen = picture("session", {"log": log, "mode": "manual"}, {"appended": appended})
    assert isinstance(seen, EventList)
    assert [(e.key, e.mark) for e in seen.before] == [("0", "covered by seq 2"), ("1", None)]
    assert [(e.key, e.kind, e.mark) for e in seen.after] == [("2", "compaction", "appended")]
