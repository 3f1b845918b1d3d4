"""Messages histories a chat provider accepts, and the sentences that name a provider-rule break."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings

from compactcheck.harness import Case
from compactcheck.invariants.laws.messages.provider_rules import chat_completions_problems
from compactcheck.strategies import Scenario, project_messages, scenarios

VALID_FOR_PROVIDER = scenarios(late_results=False, pending_calls=False)


def tool_call_breaks(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Breaks of the chat completions rule, read literally and independently of the toolkit."""
    # Each assistant message with tool_calls is followed at once by exactly one tool message per
    # call id, in any order; a tool message anywhere else breaks the rule.
    breaks: list[str] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message["role"] == "tool":
            breaks.append(f"tool message {index - 1} does not follow the calls it answers")
            continue
        ids = [call["id"] for call in message.get("tool_calls") or ()]
        if not ids:
            continue
        answers = [str(m.get("tool_call_id")) for m in messages[index : index + len(ids)]]
        roles = {m["role"] for m in messages[index : index + len(ids)]}
        if roles != {"tool"} or sorted(answers) != sorted(ids) or len(set(ids)) != len(ids):
            breaks.append(
                f"assistant message {index - 1} is not followed by its {len(ids)} results"
            )
        index += len(ids)
    return breaks


def every_round(scenario: Scenario) -> list[Scenario]:
    """The scenario as each possible round of a case sees it (cut after every turn)."""
    case = Case(scenario, tuple(range(1, len(scenario.turns) + 1)))
    return [case.prefix(index) for index in range(len(case.cuts))]


@settings(max_examples=150, deadline=None)
@given(VALID_FOR_PROVIDER)
def test_every_round_of_a_provider_valid_scenario_is_one_a_provider_accepts(
    scenario: Scenario,
) -> None:
    for prefix in every_round(scenario):
        messages = project_messages(prefix).as_dicts()
        assert tool_call_breaks(messages) == [], messages
        assert chat_completions_problems(messages) == []
        assert prefix.truth.late_call_ids == ()
        assert prefix.truth.pending_call_ids == ()


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_problems_are_found_exactly_where_the_rule_breaks(scenario: Scenario) -> None:
    messages = project_messages(scenario).as_dicts()
    problems = chat_completions_problems(messages)
    assert bool(problems) == bool(tool_call_breaks(messages)), problems
    truth = scenario.truth
    # An earlier compaction folds the results before it, late ones too.
    shown = {message.get("tool_call_id") for message in messages}
    late = [call_id for call_id in truth.late_call_ids if call_id in shown]
    assert sum("(a late result)" in problem for problem in problems) == len(late)
    missing = sum("(a missing result)" in problem for problem in problems)
    assert missing == len(truth.pending_call_ids)


def test_the_default_generator_still_draws_late_results_and_pending_calls() -> None:
    quick = settings(
        max_examples=2000,
        database=None,
        phases=(Phase.generate,),
        suppress_health_check=(HealthCheck.too_slow,),
    )

    def problems(scenario: Scenario) -> list[str]:
        return list(chat_completions_problems(project_messages(scenario).as_dicts()))

    # Judged on the messages themselves: a later compaction may fold a late result away.
    find(scenarios(), lambda s: any("late" in p for p in problems(s)), settings=quick)
    find(scenarios(), lambda s: s.pending_batch is not None and bool(problems(s)), settings=quick)


def _calls(*ids: str) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


USER = {"role": "user", "content": "Go on."}


def test_a_parallel_batch_answered_in_any_order_is_valid() -> None:
    messages = [USER, _calls("a", "b"), _result("b"), _result("a"), USER]
    assert chat_completions_problems(messages) == []


def test_each_break_is_named_in_one_sentence() -> None:
    late = chat_completions_problems([USER, _calls("a"), USER, _result("a")])
    assert late == [
        "tool message 3 answers call 'a' of assistant message 1 late, after message 2 came "
        "between (a late result)"
    ]
    missing = chat_completions_problems([USER, _calls("a", "b"), _result("a"), USER])
    assert missing == [
        "tool call 'b' of assistant message 1 has no result: message 3 comes first and none "
        "follows (a missing result)"
    ]
    pending = chat_completions_problems([USER, _calls("a")])
    assert pending == [
        "tool call 'a' of assistant message 1 has no result: the history ends first "
        "(a missing result)"
    ]
    orphan = chat_completions_problems([USER, _result("z")])
    assert orphan == [
        "tool message 1 answers call 'z', which no earlier assistant message made "
        "(an orphan result)"
    ]
    twice = chat_completions_problems([USER, _calls("a"), _result("a"), _result("a")])
    assert twice == ["tool message 3 answers call 'a' of assistant message 1 a second time"]
