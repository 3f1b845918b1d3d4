"""The provider rules on a history's first turn (Gemini, Claude on Bedrock) and on an assistant
message that holds only thinking (Anthropic), on hand-written histories."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants import Facts
from compactcheck.invariants.catalogue import ALL_FORMATS, catalogue
from compactcheck.invariants.formats import Format, parse_request
from compactcheck.invariants.levels import PROVIDER_RULES, level_of
from compactcheck.invariants.messages import parse_messages

FACTS = Facts(goal="Goal: fix the bug")
SIGNED = {"type": "thinking", "thinking": "Read the file first.", "signature": "sig-" + "a" * 40}


def _check(law_id: str, format: Format, before: dict[str, Any], after: dict[str, Any]) -> Any:
    [law] = [law for law in catalogue("messages", ALL_FORMATS) if law.id == law_id]
    assert law.formats == (format,)
    assert level_of(law_id, structural=True, format=format) == 1
    check: Any = law.check
    return check(parse_request(format, before), parse_request(format, after), FACTS)


def _claude(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"system": "Be careful.", "messages": list(messages)}


GOAL = {"role": "user", "content": "Goal: fix the bug"}
REPLY = {"role": "assistant", "content": [SIGNED, {"type": "text", "text": "Reading app.py."}]}
AGAIN = {"role": "user", "content": "Go on."}

SYSTEM = {"role": "system", "content": "Be careful."}
ASK = {"role": "user", "content": "Goal: fix the bug"}
ANSWER = {"role": "assistant", "content": "Reading app.py."}
MORE = {"role": "user", "content": "Go on."}


def _opening(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> Any:
    [law] = [law for law in catalogue("messages", ALL_FORMATS) if law.id == "user_turn_first"]
    return law.check(parse_messages(before), parse_messages(after), FACTS)


def test_an_answer_that_opens_with_an_assistant_turn_breaks_the_first_turn_law() -> None:
    finding = _opening([SYSTEM, ASK, ANSWER, MORE], [SYSTEM, ANSWER, MORE])
    assert [v.because for v in finding.violations] == [
        "the output opens with an assistant message at index 1, not a user turn; the input "
        "opened with the user message at index 1"
    ]


def test_an_answer_that_keeps_a_user_turn_first_passes() -> None:
    finding = _opening([SYSTEM, ASK, ANSWER, MORE], [SYSTEM, MORE])
    assert finding.exercised
    assert not finding.violations


def test_an_input_that_opened_with_an_assistant_turn_is_not_judged() -> None:
    finding = _opening([SYSTEM, ANSWER, MORE], [SYSTEM, ANSWER])
    assert not finding.exercised
    assert not finding.violations


@pytest.mark.parametrize(
    ("format", "level"),
    [("gemini", 1), ("anthropic", 2), ("openai-chat", 2), ("openai-responses", 2)],
)
def test_the_first_turn_law_rejects_where_the_provider_does(format: str, level: int) -> None:
    # Gemini rejects model-first contents; Anthropic's own API and OpenAI's accept an
    # assistant-first history (Claude on Bedrock does not: a platform, not a format).
    assert level_of("user_turn_first", format=format) == level
    assert (("user_turn_first", format) in PROVIDER_RULES) is True


@pytest.mark.parametrize(
    ("content", "because"),
    [
        ([SIGNED], "messages.1: the assistant message holds only thinking"),
        (
            [{"type": "text", "text": "Reading."}, SIGNED],
            "messages.1: the assistant message ends on a thinking block",
        ),
        (
            [{"type": "redacted_thinking", "data": "opaque" * 8}],
            "messages.1: the assistant message holds only thinking",
        ),
    ],
)
def test_an_assistant_message_ending_on_thinking_is_rejected(
    content: list[dict[str, Any]], because: str
) -> None:
    kept = {"role": "assistant", "content": content}
    finding = _check(
        "anthropic_thinking_not_last_block",
        "anthropic",
        _claude(GOAL, REPLY, AGAIN),
        _claude(GOAL, kept, AGAIN),
    )
    assert [v.because for v in finding.violations] == [because]


def test_thinking_followed_by_text_or_a_call_passes() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
    }
    history = _claude(GOAL, REPLY, AGAIN, {"role": "assistant", "content": [SIGNED, call]}, result)
    finding = _check("anthropic_thinking_not_last_block", "anthropic", history, history)
    assert finding.exercised
    assert not finding.violations
