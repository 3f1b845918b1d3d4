"""The reference message compactor: hand-written behaviour, and every law on generated histories."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.invariants.catalogue import catalogue, run_checks
from compactcheck.invariants.counting import BUILT_IN
from compactcheck.invariants.facts import Budget, Facts
from compactcheck.invariants.facts import Counter as BudgetCounter
from compactcheck.invariants.laws.messages import message_size
from compactcheck.invariants.messages import parse_messages
from compactcheck.reference_engine.messages import reference_messages, safe_cuts
from compactcheck.reference_engine.messages.summary import first_line
from compactcheck.strategies.messages_facts import messages_facts
from compactcheck.strategies.messages_view import MessageHistory, message_histories
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenarios import scenarios

Message = dict[str, Any]
LAWS = catalogue("messages")
COUNTERS: tuple[BudgetCounter, ...] = BUILT_IN


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


def calls(*ids: str, path: str = "app.py") -> Message:
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "edit_file", "arguments": json.dumps({"path": path})},
            }
            for call_id in ids
        ],
    }


def result(call_id: str, text: str = "ok") -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


SYSTEM = {"role": "system", "content": "You are a coding agent.\nConstraints:\n- [c1] Use 3.11"}
HISTORY: list[Message] = [
    SYSTEM,
    user("Goal: Fix the login bug\n\nGo on."),
    assistant("Starting step s2.\nI will read first."),
    calls("call_1", "call_2", path="src/auth/login.py"),
    result("call_1", "wrote src/auth/login.py"),
    result("call_2", "error: timeout"),
    user("Please continue.\n\nNew constraints:\n- [c2] Use 3.12 (replaces [c1] Use 3.11)"),
    calls("call_3"),
    result("call_3", "wrote app.py"),
    assistant("Done."),
]
FACTS = Facts(
    goal="Fix the login bug",
    constraints=("Use 3.12",),
    superseded_constraints=("Use 3.11",),
    must_keep=("src/auth/login.py", "app.py", "s2"),
)


def violations(before: list[Message], after: list[Message], facts: Facts = FACTS) -> list[str]:
    findings = run_checks(LAWS, parse_messages(before), parse_messages(after), facts)
    return [v.because for finding in findings for v in finding.violations]


def test_a_history_that_fits_comes_back_unchanged() -> None:
    assert reference_messages(max_messages=10)(HISTORY) == HISTORY


def test_compaction_keeps_head_summary_and_a_safe_tail() -> None:
    # Six messages: the tail starts at the call of call_3, since its result may not go alone.
    after = reference_messages(max_messages=6)(HISTORY)
    assert after[:2] == HISTORY[:2]
    assert after[3:] == HISTORY[7:]
    summary = after[2]["content"]
    assert summary.startswith("Summary of 5 earlier messages")
    assert "- assistant: Starting step s2." in summary
    assert "I will read first." not in summary
    assert 'edit_file {"path": "src/auth/login.py"} (call_1)' in summary
    assert "- tool result call_2: error: timeout" in summary
    assert "- [c2] Use 3.12 (replaces [c1] Use 3.11)" in summary.splitlines()
    assert violations(HISTORY, after) == []


def test_the_tail_never_starts_between_parallel_results() -> None:
    # Four messages would cut between the two results of call_1 and call_2.
    history = [SYSTEM, user("Go on."), assistant("Done."), *HISTORY[3:6]]
    after = reference_messages(max_messages=4)(history)
    assert after == [SYSTEM, user("Go on."), after[2], *history[3:6]]
    assert violations(history, after) == []


def test_safe_cuts_follow_late_results() -> None:
    history = parse_messages(
        [user("x"), calls("a"), assistant("meanwhile"), result("a"), assistant("y")]
    )
    assert safe_cuts(history) == [True, True, False, False, True, True]


def test_a_pending_call_stays_last() -> None:
    history = [*HISTORY, calls("call_9", path="README.md")]
    after = reference_messages(max_messages=4)(history)
    assert after[-1] == history[-1]
    assert violations(history, after) == []


def test_compaction_is_deterministic_and_leaves_its_input_alone() -> None:
    history = copy.deepcopy(HISTORY)
    compactor = reference_messages(max_messages=4)
    first = compactor(history)
    assert history == HISTORY
    assert compactor(history) == first
    first[0]["content"] = "changed"
    assert history == HISTORY


def test_chained_compactions_keep_every_law() -> None:
    once = reference_messages(max_messages=6)(HISTORY)
    twice = reference_messages(max_messages=4)([*once, user("Go on."), assistant("Done.")])
    assert violations(HISTORY, twice) == []
    assert "Starting step s2." in twice[2]["content"]


@pytest.mark.parametrize("counter", COUNTERS)
def test_a_reachable_budget_is_respected(counter: BudgetCounter) -> None:
    floor = message_size(
        parse_messages(reference_messages(budget=Budget(limit=0, counter=counter))(HISTORY)),
        counter,
    )
    budget = Budget(limit=floor, counter=counter)
    after = reference_messages(budget=budget)(HISTORY)
    assert message_size(parse_messages(after), counter) <= floor
    assert violations(HISTORY, after, FACTS.model_copy(update={"budget": budget})) == []


def test_an_unreachable_budget_gets_the_smallest_lawful_output() -> None:
    budget = Budget(limit=1, counter="messages")
    after = reference_messages(budget=budget)(HISTORY)
    # Head (2), summary (1) and the last message: nothing smaller keeps every other law.
    assert len(after) == 4
    facts = FACTS.model_copy(update={"budget": budget})
    assert violations(HISTORY, after, facts) == [
        "the output measures 4 messages against a budget of 1; its largest message is the user "
        "message at output index 2"
    ]


def test_max_messages_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_messages must be at least 1"):
        reference_messages(max_messages=0)


@st.composite
def budgeted(draw: st.DrawFn) -> tuple[Projected[MessageHistory], int, Budget | None]:
    """A history, a message cap, and a budget the reference can reach (or none)."""
    projected = draw(message_histories(scenarios(max_turns=5, max_actions=6)))
    max_messages = draw(st.integers(2, 6))
    counter = draw(st.sampled_from((*COUNTERS, None)))
    if counter is None:
        return projected, max_messages, None
    history = projected.view.as_dicts()
    tightest = reference_messages(max_messages, Budget(limit=0, counter=counter))(history)
    floor = message_size(parse_messages(tightest), counter)
    full = message_size(projected.view.messages, counter)
    # Slack up to half the way to the full size, so that most budgets force a compaction.
    limit = floor + draw(st.integers(0, max(0, full - floor) // 2))
    return projected, max_messages, Budget(limit=limit, counter=counter)


def test_the_reference_keeps_every_law_on_generated_histories() -> None:
    exercised: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    examples = 0

    # Derandomized: the shares below are thresholds on a distribution, so they must not move
    # from run to run.
    @settings(
        max_examples=250,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(budgeted())
    def keeps_every_law(drawn: tuple[Projected[MessageHistory], int, Budget | None]) -> None:
        nonlocal examples
        projected, max_messages, budget = drawn
        before = projected.view.as_dicts()
        after = reference_messages(max_messages, budget)(before)
        facts = messages_facts(projected, budget)
        findings = run_checks(LAWS, parse_messages(before), parse_messages(after), facts)
        assert [v for f in findings for v in f.violations] == []
        examples += 1
        exercised.update(f.invariant for f in findings if f.exercised)
        shapes["compacted"] += len(after) < len(before)
        shapes["summarised"] += any(m.get("content", "").startswith("Summary of") for m in after)
        shapes["superseded constraint"] += bool(facts.superseded_constraints)
        shapes["pending call last"] += bool(projected.view.pending_call_ids)

    keeps_every_law()
    shares = {law.id: exercised[law.id] / examples for law in LAWS}
    print(f"\nmessages laws exercised over {examples} examples:")
    for name, share in [*shares.items(), *((k, v / examples) for k, v in shapes.items())]:
        print(f"  {name:<24} {share:6.1%}")
    assert examples >= 200
    assert min(shares.values()) >= 0.4, shares
    assert shapes["compacted"] / examples >= 0.3, shapes


@given(st.text(alphabet="ab\n\r", max_size=12))
def test_a_first_line_is_what_a_split_at_the_first_newline_gives(text: str) -> None:
    assert first_line(text) == text.split("\n", 1)[0]
