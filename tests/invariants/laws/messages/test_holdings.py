"""Where a history holds a judged fact, by form, and how a run's report says what it met."""

from __future__ import annotations

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.laws.messages.holdings import LONG_RESULT, held_only_in
from compactcheck.invariants.messages import parse_messages
from compactcheck.render._digest import held_text
from compactcheck.report.model import TargetReport

_CALL = {"id": "call_1", "type": "function", "function": {"name": "edit_file", "arguments": ""}}


def _edit(path: str) -> list[dict[str, object]]:
    call = {**_CALL, "function": {"name": "edit_file", "arguments": f'{{"path":"{path}"}}'}}
    return [
        {"role": "user", "content": "Fix the bug"},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]


def test_a_path_only_in_an_edits_arguments_is_held_only_there() -> None:
    messages = parse_messages(_edit("src/app.py"))
    facts = Facts(goal="Fix the bug", must_keep=("src/app.py",))
    assert held_only_in(messages, facts) == {"call_arguments"}


def test_a_path_the_result_restates_is_not_held_only_in_the_arguments() -> None:
    history = _edit("src/app.py")
    history[2] = {"role": "tool", "tool_call_id": "call_1", "content": "wrote src/app.py"}
    facts = Facts(goal="Fix the bug", must_keep=("src/app.py",))
    assert held_only_in(parse_messages(history), facts) == set()


def test_a_fact_past_the_head_of_a_long_result_is_held_only_in_the_long_result() -> None:
    history = _edit("x")
    log = "." * LONG_RESULT + "\nfixed src/auth/tokens.py"
    history[2] = {"role": "tool", "tool_call_id": "call_1", "content": log}
    facts = Facts(goal="Fix the bug", must_keep=("src/auth/tokens.py",))
    assert held_only_in(parse_messages(history), facts) == {"long_result"}


def test_a_constraint_in_a_parts_list_is_held_only_in_parts() -> None:
    parts = [{"type": "text", "text": "Go on."}, {"type": "text", "text": "Use Python 3.11"}]
    history = [{"role": "user", "content": parts}]
    facts = Facts(goal="Go on.", constraints=("Use Python 3.11",))
    assert held_only_in(parse_messages(history), facts) == {"parts"}


def test_a_run_that_never_met_a_form_says_so() -> None:
    counts = {"call_arguments": 3, "long_result": 0, "parts": 5}
    report = TargetReport(target="t", view="messages", results=[], facts_held_only_in=counts)
    text = held_text(report)
    assert "call arguments: 3" in text
    assert "a long tool result: none met" in text
    assert "a list of parts: 5" in text


def test_a_report_written_before_the_counts_loads_without_them() -> None:
    old = TargetReport.model_validate({"target": "t", "view": "messages", "results": []})
    assert old.facts_held_only_in == {}
    assert held_text(old) == ""
