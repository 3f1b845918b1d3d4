"""A law fails only on a certain ruling; what the reading cannot settle is left for review."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants.catalogue import select
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.messages import parse_messages
from compactcheck.invariants.verdict import Finding

SYSTEM = {
    "role": "system",
    "content": "You are a coding agent.\nConstraints:\n- [c1] Use Python 3.11",
}
GOAL = "Fix the login bug (AUTH-142)"


def _check(law: str, before: list[Any], after: list[Any], facts: Facts) -> Finding:
    (found,) = select("messages", [law])
    return found.check(parse_messages(before), parse_messages(after), facts)


def _pair(constraint: str, summary: str) -> tuple[list[Any], list[Any], Facts]:
    system = {"role": "system", "content": "You are a coding agent."}
    before = [system, {"role": "user", "content": f"{GOAL}. Rule: {constraint}."}]
    after = [system, {"role": "user", "content": f"Summary: {summary}"}]
    return before, after, Facts(goal=GOAL, constraints=(constraint,))


def test_an_unsure_ruling_is_an_item_for_review_never_a_violation_nor_a_silent_pass() -> None:
    before, after, facts = _pair(
        "Do not touch the public API", "Leave the public API alone: do not modify it."
    )
    finding = _check("constraints_preserved", before, after, facts)
    assert finding.violations == ()
    assert finding.needs_review
    (item,) = finding.review
    assert item.invariant == "constraints_preserved"
    assert (item.fact, item.kind, item.message) == ("Do not touch the public API", "constraint", 1)
    assert item.sentence == "Summary: Leave the public API alone: do not modify it."
    assert item.leans == "contradicted"
    assert "no one clause" in item.reason
    assert item.to_json_data()["leans"] == "contradicted"


def test_a_certain_ruling_fails_and_leaves_nothing_for_review() -> None:
    before, after, facts = _pair("Do not touch the public API", "Touch the public API as needed.")
    finding = _check("constraints_preserved", before, after, facts)
    (violation,) = finding.violations
    assert "is contradicted in the output" in violation.because
    assert finding.review == ()
    before, after, facts = _pair("Do not touch the public API", "Don't touch the public API.")
    finding = _check("constraints_preserved", before, after, facts)
    assert (finding.violations, finding.review) == ((), ())


def test_a_stale_value_is_owed_to_the_summary_that_dropped_its_note_not_the_kept_prompt() -> None:
    note = "Update: [c2] Use Python 3.12 (replaces [c1] Use Python 3.11)"
    before = [
        SYSTEM,
        {"role": "user", "content": GOAL},
        {"role": "assistant", "content": f"Summary so far: working on AUTH-142. {note}"},
        {"role": "user", "content": "Go on."},
    ]
    after = [
        SYSTEM,
        {"role": "assistant", "content": f"Summary: {GOAL}; tests pass. Use Python 3.12."},
        {"role": "user", "content": "Go on."},
    ]
    facts = Facts(
        goal=GOAL, constraints=("Use Python 3.12",), superseded_constraints=("Use Python 3.11",)
    )
    finding = _check("constraints_preserved", before, after, facts)
    (violation,) = finding.violations
    assert "by the system message at output index 0, kept word for word" in violation.because
    assert "because the assistant message at output index 1 no longer says it" in violation.because
    # The witness opens with the message that caused it.
    assert violation.witness[0] == parse_messages([after[1]])[0].to_json_data()


def test_a_later_round_judges_the_declared_goal_not_that_round_s_first_user_message() -> None:
    summary = {"role": "assistant", "content": f"Summary: the goal: {GOAL}."}
    update = {"role": "user", "content": "Go on.\n\nNew constraints:\n- [c1] Use Python 3.11"}
    before = [SYSTEM, summary, update, {"role": "assistant", "content": "ok"}]
    facts = Facts(goal=GOAL, constraints=("Use Python 3.11",))
    # The round's first user message ("Go on. ...") is summarised away; the goal survives.
    kept = [
        SYSTEM,
        {"role": "assistant", "content": "Summary: fixing the login bug, ticket AUTH-142."},
        before[-1],
    ]
    assert _check("goal_preserved", before, kept, facts).violations == ()
    lost = [SYSTEM, {"role": "assistant", "content": "Summary: fixing a bug."}, before[-1]]
    (violation,) = _check("goal_preserved", before, lost, facts).violations
    assert violation.because.startswith(f"the goal {GOAL!r} (input index 1) does not survive")
    assert "the assistant message at output index 1 is what the compaction wrote" in (
        violation.because
    )
    # The input no longer holding the goal at all is an earlier round's loss, not this one's.
    gone = [SYSTEM, update, before[-1]]
    assert not _check("goal_preserved", gone, gone[1:], facts).exercised


def test_a_goal_whose_tokens_are_spread_but_none_absent_is_left_for_review() -> None:
    goal = f"{GOAL} in src/auth.py"
    before = [SYSTEM, {"role": "user", "content": goal}, {"role": "assistant", "content": "ok"}]
    after = [
        SYSTEM,
        {"role": "assistant", "content": "Working on AUTH-142."},
        {"role": "user", "content": "The file is src/auth.py."},
    ]
    facts = Facts(goal=goal)
    finding = _check("goal_preserved", before, after, facts)
    assert finding.violations == ()
    (item,) = finding.review
    assert (item.fact, item.kind) == (goal, "goal")
    # With the ticket gone from the output, the loss is certain.
    after[1] = {"role": "assistant", "content": "Working on the login."}
    assert _check("goal_preserved", before, after, facts).violations


def test_a_summary_restating_a_replaced_rule_before_a_kept_note_is_for_review() -> None:
    # The summary's own last word restates the old rule, and the kept tail retires it once more:
    # the output says it both ways, so a reader is asked, and nothing fails.
    note = "New rule: [c2] Use Python 3.12 (replaces [c1] Use Python 3.11)"
    before = [
        SYSTEM,
        {"role": "user", "content": GOAL},
        {"role": "assistant", "content": "Reading the code."},
        {"role": "user", "content": note},
    ]
    facts = Facts(
        goal=GOAL, constraints=("Use Python 3.12",), superseded_constraints=("Use Python 3.11",)
    )
    both = f"Summary: {GOAL}. {note}. Constraint: Use Python 3.11."
    after = [SYSTEM, {"role": "assistant", "content": both}, before[3]]
    finding = _check("constraints_preserved", before, after, facts)
    assert finding.violations == ()
    (item,) = [item for item in finding.review if item.fact == "Use Python 3.11"]
    assert (item.kind, item.leans, item.message) == ("superseded", "stale", 1)
    assert item.sentence is not None
    assert "Constraint: Use Python 3.11" in item.sentence
    assert "both ways" in item.reason
    # A summary told in order that ends before the replacement (the note is in the kept tail)
    # says the rule as it stood then: no second version, nothing to ask.
    then = f"Summary: {GOAL}. Constraint: Use Python 3.11."
    after = [SYSTEM, {"role": "assistant", "content": then}, before[3]]
    finding = _check("constraints_preserved", before, after, facts)
    assert [item for item in finding.review if item.fact == "Use Python 3.11"] == []
    # The same summary with its note last leaves nothing to ask.
    noted = f"Summary: {GOAL}. Constraint: Use Python 3.11. {note}."
    after = [SYSTEM, {"role": "assistant", "content": noted}, before[3]]
    finding = _check("constraints_preserved", before, after, facts)
    assert [item for item in finding.review if item.fact == "Use Python 3.11"] == []
