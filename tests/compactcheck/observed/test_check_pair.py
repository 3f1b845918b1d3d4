"""One recorded compaction judged from plain JSON: every view, every format, inferred facts."""

from __future__ import annotations

import json
from typing import Any

import pytest

import compactcheck
from compactcheck.invariants import AgentEvent, AgentState, parse_messages
from compactcheck.invariants.formats import detect_format
from compactcheck.invariants.inference import infer_facts
from compactcheck.reference_engine.shared_semantics import SnapshotFrame, compactor_input
from compactcheck.reference_engine.snapshot.compactor import ReferenceCompactor
from compactcheck.targets.registry import resolve
from compactcheck.targets.smoke import smoke_round

SYSTEM = {
    "role": "system",
    "content": "You are a coding agent.\nRules:\n- Never push to main\n2. [c2] Use Python 3.11",
}
GOAL = {"role": "user", "content": "Fix the login bug in auth.py"}


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


BEFORE = [
    SYSTEM,
    GOAL,
    _call("call_1", "read_file", path="docs/notes.md"),
    _result("call_1", "notes"),
    _call("call_2", "edit_file", path="src/auth.py", step_id="s2"),
    _result("call_2"),
    {"role": "user", "content": "Now run the tests."},
]


def test_facts_are_read_off_the_history() -> None:
    facts = infer_facts(parse_messages(BEFORE), None)
    assert facts.goal == "Fix the login bug in auth.py"
    assert facts.constraints == ("Never push to main", "Use Python 3.11")
    # The edited file and the step id; not the file that was only read.
    assert facts.must_keep == ("src/auth.py", "s2")
    assert facts.inferred == ("goal", "constraints", "must_keep")


def test_a_pending_call_is_must_keep_and_declared_fields_are_not_inferred() -> None:
    pending = [*BEFORE[:4], _call("call_9", "run_tests")]
    facts = infer_facts(parse_messages(pending), {"goal": "Declared goal", "constraints": []})
    assert facts.goal == "Declared goal"
    assert facts.constraints == ()
    assert facts.must_keep == ("call_9",)
    assert facts.inferred == ("must_keep",)


def test_a_faithful_compaction_holds_with_inferred_facts() -> None:
    summary = {"role": "assistant", "content": "Summary: read the notes, edited src/auth.py (s2)."}
    judgement = compactcheck.check(BEFORE, [SYSTEM, GOAL, summary, BEFORE[-1]])
    assert judgement.holds, [v.because for v in judgement.violations]
    assert judgement.inferred == ("goal", "constraints", "must_keep")
    assert judgement.format == "openai-chat"


def test_a_violation_on_an_inferred_fact_says_so_and_one_on_the_history_does_not() -> None:
    after = [GOAL, {"role": "assistant", "content": "Summary: worked on auth."}, BEFORE[-1]]
    judgement = compactcheck.check(BEFORE, after)
    because = {v.because for v in judgement.violations if v.invariant != "order_preserved"}
    inferred = "; judged on inferred facts (constraints read from the history, not declared)"
    assert "the system message at input index 0 is missing from the output" in because
    assert (
        "current constraint 'Never push to main' (input index 0) is missing from the output"
        + inferred
    ) in because
    assert (
        "must-keep identifier 'src/auth.py' (first at input index 4) appears nowhere in the "
        "output; judged on inferred facts (must_keep read from the history, not declared)"
    ) in because
    # Declared, the same fact is not labelled.
    declared = compactcheck.check(BEFORE, after, {"goal": GOAL["content"], "must_keep": ["s2"]})
    labels = [v.because for v in declared.violations if v.invariant == "facts_preserved"]
    assert labels == [
        "must-keep identifier 's2' (first at input index 4) appears nowhere in the output"
    ]


def test_a_declared_facts_object_is_taken_whole() -> None:
    facts = compactcheck.Facts(goal="Fix the login bug")
    judgement = compactcheck.check(BEFORE, [SYSTEM, GOAL, BEFORE[-1]], facts)
    assert judgement.inferred == ()
    assert [v.invariant for v in judgement.violations] == []


ANTHROPIC = {
    "system": "Be careful.\n- Never push to main",
    "messages": [
        {"role": "user", "content": "Fix it"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "write_file",
                    "input": {"path": "a.py"},
                }
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
        },
    ],
}
RESPONSES = {
    "instructions": "Be careful.",
    "input": [
        {"type": "message", "role": "user", "content": "Fix it"},
        {"type": "function_call", "call_id": "c1", "name": "write_file", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ],
}
GEMINI = {
    "contents": [
        {"role": "user", "parts": [{"text": "Fix it"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "write_file", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "write_file", "response": {}}}]},
    ]
}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (BEFORE, "openai-chat"),
        ({"model": "gpt-x", "messages": BEFORE}, "openai-chat"),
        (ANTHROPIC, "anthropic"),
        (ANTHROPIC["messages"], "anthropic"),
        (RESPONSES, "openai-responses"),
        (RESPONSES["input"], "openai-responses"),
        (GEMINI, "gemini"),
        (GEMINI["contents"], "gemini"),
        ([], None),
        ({"something": 1}, None),
    ],
)
def test_the_format_is_read_from_the_shape(data: Any, expected: str | None) -> None:
    assert detect_format(data) == expected


def test_an_anthropic_orphan_is_judged_by_the_provider_rule_too() -> None:
    after = {"system": ANTHROPIC["system"], "messages": [ANTHROPIC["messages"][2]]}
    judgement = compactcheck.check(ANTHROPIC, after)
    assert judgement.format == "anthropic"
    broken = {v.invariant for v in judgement.violations}
    assert {"tool_pairing", "anthropic_tool_result_has_prior_use"} <= broken


@pytest.mark.parametrize("request_", [RESPONSES, GEMINI])
def test_a_bare_history_list_of_a_provider_format_is_judged(request_: dict[str, Any]) -> None:
    history = request_["input"] if "input" in request_ else request_["contents"]
    judgement = compactcheck.check(history, history)
    assert judgement.holds


def test_data_that_is_not_a_pair_is_one_line_error() -> None:
    with pytest.raises(compactcheck.CompactcheckError, match="cannot tell the format"):
        compactcheck.check([1], [2])
    with pytest.raises(
        compactcheck.CompactcheckError, match="not valid openai-chat data"
    ) as caught:
        compactcheck.check([{"role": "wizard"}], [], format="openai-chat")
    assert "\n" not in str(caught.value)


def _snapshot_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    outcome = smoke_round(resolve("reference"), "snapshot")
    state = AgentState.from_json_data(outcome.input["state"])
    events = tuple(AgentEvent.from_json_data(e) for e in outcome.input["events"])
    handed = compactor_input(state, events, SnapshotFrame(compactor=ReferenceCompactor()).design)
    return outcome.input, ReferenceCompactor().compact(handed).to_json_data()


def test_a_snapshot_draft_is_sealed_and_judged_from_json() -> None:
    before, draft = _snapshot_pair()
    judgement = compactcheck.check(before, {"draft": draft}, view="snapshot")
    exercised = [f.invariant for f in judgement.findings if f.exercised]
    assert len(exercised) >= 5
    # The smoke history is tiny: the reference frame would decline it, and a recorded
    # compaction that did not shrink the context breaks the progress law.
    assert [v.invariant for v in judgement.violations] == ["progress"]
    forgetful = {**draft, "goal": "Something else"}
    broken = compactcheck.check(before, forgetful, view="snapshot")
    assert "goal_preserved" in {v.invariant for v in broken.violations}


def test_a_session_answer_is_judged_from_json() -> None:
    outcome = smoke_round(resolve("reference-session"), "session")
    judgement = compactcheck.check(outcome.input, outcome.output, view="session")
    assert judgement.holds
    assert any(f.exercised for f in judgement.findings)
    with pytest.raises(compactcheck.CompactcheckError, match='"log"'):
        compactcheck.check({"mode": "manual"}, {}, view="session")
