"""Goals and rules inferred from plain English, each with its certainty and where it was read."""

from __future__ import annotations

import compactcheck
from compactcheck.invariants.inference import infer_facts
from compactcheck.invariants.messages import parse_messages

SYSTEM = {"role": "system", "content": "You are a coding agent."}


def _inferred(*texts: str) -> list[tuple[str, str, str, str]]:
    history = parse_messages([SYSTEM, *({"role": "user", "content": t} for t in texts)])
    facts = infer_facts(history, None)
    return [(i.field, i.text, i.certainty, i.source) for i in facts.inferences]


def test_rules_stated_as_people_state_them_are_inferred_with_their_certainty() -> None:
    ask = (
        "Fix the login bug (AUTH-142). Also: do not touch the public API. Please never push to "
        "main.\nMake sure to keep refunds under $500.\nDon't log emails.\nAlso: the tests live "
        "in tests/."
    )
    rule, also = "user message 1, a sentence stating a rule", "user message 1, after 'Also:'"
    assert _inferred(ask) == [
        ("goal", "Fix the login bug (AUTH-142).", "certain", "user message 1"),
        ("constraints", "do not touch the public API", "certain", also),
        ("constraints", "Please never push to main", "certain", rule),
        ("constraints", "Make sure to keep refunds under $500", "certain", rule),
        ("constraints", "Don't log emails", "certain", rule),
        # What follows "Also:" but states no rule is a guess.
        ("constraints", "the tests live in tests/", "unsure", also),
    ]


def test_a_numbered_list_is_read_as_requirements_surely_only_where_an_item_states_a_rule() -> None:
    found = _inferred("Ship the export.", "Before you go:\n1. add logging\n2. Never log emails")
    item = "user message 2, an item of a numbered list"
    assert found[1:] == [
        ("constraints", "add logging", "unsure", item),
        ("constraints", "Never log emails", "certain", item),
    ]
    # One numbered line is no list.
    assert _inferred("Ship it.", "1. add logging")[1:] == []


def test_check_says_which_facts_were_inferred_and_from_where() -> None:
    before = [
        SYSTEM,
        {"role": "user", "content": "Fix the login bug. Also: do not touch the public API."},
        {"role": "assistant", "content": "Looking."},
        {"role": "user", "content": "Go on."},
    ]
    after = [
        SYSTEM,
        {"role": "user", "content": "Summary: fixing the login bug. Touch the public API."},
        before[-1],
    ]
    judged = compactcheck.check(before, after)
    (rule,) = [i for i in judged.inferences if i.field == "constraints"]
    assert (rule.text, rule.message, rule.certainty) == (
        "do not touch the public API",
        1,
        "certain",
    )
    assert {v.invariant for v in judged.violations} == {"constraints_preserved"}


def test_a_loss_of_a_rule_inferred_unsure_is_left_for_review() -> None:
    before = [
        SYSTEM,
        {"role": "user", "content": "Fix the login bug. Also: the tests live in tests/."},
        {"role": "assistant", "content": "Looking."},
        {"role": "user", "content": "Go on."},
    ]
    after = [SYSTEM, {"role": "user", "content": "Summary: fixing the login bug."}, before[-1]]
    judged = compactcheck.check(before, after)
    assert judged.violations == []
    (finding,) = [f for f in judged.findings if f.invariant == "constraints_preserved"]
    (item,) = finding.review
    assert "inferred, unsure, from user message 1, after 'Also:'" in item.reason


def test_a_history_that_states_no_goal_has_the_empty_goal() -> None:
    """A recorded history may open with tool traffic and no user task: nothing to read, no error."""
    history = parse_messages(
        [
            {"role": "system", "content": "You are a careful coding agent."},
            {"role": "assistant", "content": "Reading the file."},
        ]
    )
    facts = infer_facts(history, None)
    assert facts.goal == ""
    assert "goal" in facts.inferred


def test_a_rule_that_names_the_one_it_replaces_retires_it() -> None:
    """The note is no part of the rule; the rule it names is superseded, no longer current."""
    history = parse_messages(
        [
            {"role": "system", "content": "You are an agent.\nRules:\n- [c1] Use Python 3.11"},
            {
                "role": "user",
                "content": "Goal: fix the login bug\n\nNew constraints:\n"
                "- [c3] Never push to main (replaces [c1] Use Python 3.11)",
            },
        ]
    )
    facts = infer_facts(history, None)
    assert facts.constraints == ("Never push to main",)
    assert facts.superseded_constraints == ("Use Python 3.11",)
    [rule] = [i for i in facts.inferences if i.field == "constraints"]
    assert "replacing 'Use Python 3.11'" in rule.source
    declared = infer_facts(history, {"superseded_constraints": []})
    assert declared.superseded_constraints == ()
