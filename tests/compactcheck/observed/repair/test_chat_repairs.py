"""Each repair of chat completions, on the smallest answer that needs it: it mends its law."""

from __future__ import annotations

from pathlib import Path

from compactcheck.observed.repair import chat_pairing, constraints, order, prompt, verbatim
from tests.compactcheck.observed.repair.pairs import (
    GOAL,
    NEXT,
    SYSTEM,
    Messages,
    applied,
    broken,
    call,
    calls,
    loss_judge,
    mended,
    result,
)

HISTORY: Messages = [
    SYSTEM,
    GOAL,
    call("c1"),
    result("c1"),
    {"role": "assistant", "content": "Reading the tests next."},
    call("c2", path="tests/test_login.py"),
    result("c2", "def test_login(): ..."),
    NEXT,
]
SUMMARY = {"role": "user", "content": "Summary: a.py read; the tests were read."}


def test_take_out_orphan_results_drops_a_result_whose_call_went() -> None:
    after = [SYSTEM, GOAL, result("c1"), NEXT]
    side = mended(chat_pairing.take_out_orphan_results, "tool_pairing", HISTORY, after)
    assert side.units == [SYSTEM, GOAL, NEXT]


def test_take_out_orphan_results_keeps_the_input_s_last_message() -> None:
    history = [*HISTORY[:-1]]
    after = [SYSTEM, GOAL, result("c2", "def test_login(): ...")]
    assert applied(chat_pairing.take_out_orphan_results, history, after) is None
    side = mended(chat_pairing.bring_back_calls, "tool_pairing", history, after)
    assert side.units == [SYSTEM, GOAL, history[5], history[6]]


def test_bring_back_calls_brings_the_other_results_of_a_parallel_call() -> None:
    history = [SYSTEM, GOAL, calls("p1", "p2"), result("p1", "one"), result("p2", "two"), NEXT]
    # A cut between two parallel results: p2's result stays, its call and p1's result went.
    after = [SYSTEM, GOAL, result("p2", "two"), NEXT]
    side = mended(chat_pairing.bring_back_calls, "tool_pairing", history, after)
    assert side.units == history


def test_take_out_unanswered_calls_drops_a_call_that_lost_its_result() -> None:
    after = [SYSTEM, GOAL, call("c1"), NEXT]
    side = mended(chat_pairing.take_out_unanswered_calls, "tool_pairing", HISTORY, after)
    assert side.units == [SYSTEM, GOAL, NEXT]


def test_take_out_unanswered_calls_keeps_the_other_calls_of_a_message() -> None:
    history = [SYSTEM, GOAL, calls("p1", "p2"), result("p1"), result("p2"), NEXT]
    after = [SYSTEM, GOAL, calls("p1", "p2"), result("p1"), NEXT]
    side = mended(chat_pairing.take_out_unanswered_calls, "tool_pairing", history, after)
    assert [c["id"] for c in side.units[2]["tool_calls"]] == ["p1"]


def test_bring_back_results_puts_a_late_result_where_it_stood() -> None:
    late = [SYSTEM, GOAL, calls("p1", "p2"), result("p1"), {"role": "assistant", "content": "Hm."}]
    history = [*late, result("p2", "late"), NEXT]
    after = [*late, NEXT]
    side = mended(chat_pairing.bring_back_results, "tool_pairing", history, after)
    assert side.units == history


def test_restore_goal_brings_the_first_user_message_back_before_the_summary() -> None:
    after = [SYSTEM, SUMMARY, NEXT]
    side = mended(prompt.restore_goal, "goal_preserved", HISTORY, after)
    assert side.units == [SYSTEM, GOAL, SUMMARY, NEXT]


def test_restore_system_prompt_puts_a_dropped_system_message_first() -> None:
    after = [GOAL, SUMMARY, NEXT]
    side = mended(prompt.restore_system_prompt, "constraints_preserved", HISTORY, after)
    assert side.units == [SYSTEM, GOAL, SUMMARY, NEXT]


def test_replace_system_prompt_undoes_relaxed_rules(tmp_path: Path) -> None:
    relaxed = {"role": "system", "content": SYSTEM["content"] + ", where possible"}
    after = [relaxed, GOAL, SUMMARY, NEXT]
    # A hedge is left for review by the reading; the judge rules it a loss.
    assert broken(HISTORY, after) == []
    side = mended(
        prompt.replace_system_prompt,
        "constraints_not_weakened",
        HISTORY,
        after,
        judge=loss_judge(tmp_path),
    )
    assert side.units == [SYSTEM, GOAL, SUMMARY, NEXT]


def test_restore_user_turn_brings_back_the_current_turn() -> None:
    note = {"role": "system", "content": "Summary: the user asked to fix the login bug."}
    after = [SYSTEM, note, HISTORY[5], HISTORY[6]]
    side = mended(prompt.restore_user_turn, "user_turn_present", HISTORY[:-1], after)
    assert GOAL in side.units


def test_restore_opening_user_turn_puts_the_user_before_the_assistant() -> None:
    after = [SYSTEM, HISTORY[4], HISTORY[5], HISTORY[6], NEXT]
    side = mended(prompt.restore_opening_user_turn, "user_turn_first", HISTORY, after)
    assert side.units[:2] == [SYSTEM, GOAL]


def test_take_out_opening_assistant_drops_what_stands_before_the_first_user() -> None:
    after = [SYSTEM, HISTORY[4], NEXT]
    side = mended(prompt.take_out_opening_assistant, "user_turn_first", HISTORY, after)
    assert side.units == [SYSTEM, NEXT]


def test_restore_last_message_puts_the_tail_back_last() -> None:
    after = [SYSTEM, GOAL, SUMMARY]
    side = mended(prompt.restore_last_message, "recent_tail_preserved", HISTORY, after)
    assert side.units[-1] == NEXT
    empty = mended(prompt.restore_last_message, "non_empty", HISTORY, [])
    assert empty.units == [NEXT]


def test_state_constraints_in_summary_adds_the_lost_rule_verbatim() -> None:
    history = [SYSTEM, GOAL, {"role": "user", "content": "New rules:\n- Keep the API stable"}, NEXT]
    after = [SYSTEM, GOAL, SUMMARY, NEXT]
    side = mended(constraints.state_constraints_in_summary, "constraints_preserved", history, after)
    assert side.units[2]["content"].endswith("\nKeep the API stable")


def test_restore_constraint_messages_brings_back_the_message_that_said_it() -> None:
    rules = {"role": "user", "content": "New rules:\n- Keep the API stable"}
    history = [SYSTEM, GOAL, rules, call("c1"), result("c1"), NEXT]
    after = [SYSTEM, GOAL, NEXT]
    side = mended(constraints.restore_constraint_messages, "constraints_preserved", history, after)
    assert side.units == [SYSTEM, GOAL, rules, NEXT]


def test_state_facts_in_summary_names_the_lost_file() -> None:
    edit = call("e1", name="edit_file", path="src/auth.py")
    history = [SYSTEM, GOAL, edit, result("e1", "ok"), NEXT]
    after = [SYSTEM, GOAL, SUMMARY, NEXT]
    side = mended(constraints.state_facts_in_summary, "facts_preserved", history, after)
    assert "src/auth.py" in side.units[2]["content"]


def test_restore_fact_messages_brings_back_the_call_with_its_result() -> None:
    edit = call("e1", name="edit_file", path="src/auth.py")
    history = [SYSTEM, GOAL, edit, result("e1", "ok"), NEXT]
    after = [SYSTEM, GOAL, NEXT]
    side = mended(constraints.restore_fact_messages, "facts_preserved", history, after)
    assert side.units == history


def test_take_out_stale_constraint_lines_drops_a_reasserted_old_rule() -> None:
    update = {"role": "user", "content": "New rules:\n- Use Python 3.12 (replaces Use Python 3.11)"}
    system = {"role": "system", "content": "Rules:\n- Use Python 3.11"}
    history = [system, GOAL, update, NEXT]
    stale = {
        "role": "user",
        "content": "Summary: the update came.\nConstraint in force: Use Python 3.11",
    }
    after = [system, GOAL, stale, NEXT]
    facts = {"constraints": ["Use Python 3.12"], "superseded_constraints": ["Use Python 3.11"]}
    assert "constraints_preserved" in broken(history, after, declared=facts)
    edit = applied(constraints.take_out_stale_constraint_lines, history, after, declared=facts)
    assert edit is not None
    assert "Use Python 3.11" not in edit.side.units[2]["content"]
    assert edit.removed == ("Constraint in force: Use Python 3.11",)


def test_take_out_invented_constraints_drops_the_rule_nobody_gave() -> None:
    invented = {
        "role": "user",
        "content": "Summary: tests read.\nConstraint: Store sessions in Redis 7.",
    }
    after = [SYSTEM, GOAL, invented, NEXT]
    side = mended(
        constraints.take_out_invented_constraints, "no_invented_constraints", HISTORY, after
    )
    assert "Redis" not in side.units[2]["content"]


def test_restore_kept_messages_undoes_cleared_arguments() -> None:
    cleared = {**HISTORY[5], "tool_calls": [{**HISTORY[5]["tool_calls"][0], "function": {
        "name": "read_file", "arguments": "{}"}}]}  # fmt: skip
    after = [SYSTEM, GOAL, SUMMARY, cleared, HISTORY[6], NEXT]
    side = mended(verbatim.restore_kept_messages, "kept_messages_verbatim", HISTORY, after)
    assert side.units[3] == HISTORY[5]


def test_restore_pruned_results_puts_back_the_whole_output() -> None:
    long = result("c2", "def test_login():\n    assert login('a', 'b')\n" * 4)
    history = [*HISTORY[:6], long, NEXT]
    pruned = result("c2", "[cleared]")
    after = [SYSTEM, GOAL, SUMMARY, HISTORY[5], pruned, NEXT]
    side = mended(verbatim.restore_pruned_results, "tool_results_unpruned", history, after)
    assert side.units[4] == long


def test_move_notes_into_gaps_puts_a_summary_where_messages_were_dropped() -> None:
    after = [SUMMARY, SYSTEM, GOAL, NEXT]
    side = mended(order.move_notes_into_gaps, "order_preserved", HISTORY, after)
    assert side.units == [SYSTEM, GOAL, SUMMARY, NEXT]


PLAIN = {"role": "system", "content": "You are a coding agent."}
RULES = {"role": "user", "content": "New rules:\n- Never push to main"}
RULED: Messages = [PLAIN, GOAL, RULES, call("c1"), result("c1"), NEXT]


def test_restate_weakened_constraints_puts_the_rule_back_verbatim(tmp_path: Path) -> None:
    weak = {"role": "user", "content": "Summary: a.py read. Avoid pushing to main where possible."}
    after = [PLAIN, GOAL, weak, NEXT]
    side = mended(
        constraints.restate_weakened_constraints,
        "constraints_not_weakened",
        RULED,
        after,
        judge=loss_judge(tmp_path),
    )
    assert side.units[2]["content"] == "Summary: a.py read. Never push to main"


def test_restate_changed_constraints_puts_the_rule_back_verbatim() -> None:
    # The negation toggled on the same predicate and object in one clause: certain.
    flipped = {"role": "user", "content": "Summary: a.py read. Push to main."}
    after = [PLAIN, GOAL, flipped, NEXT]
    side = mended(constraints.restate_changed_constraints, "constraints_preserved", RULED, after)
    assert side.units[2]["content"] == "Summary: a.py read. Never push to main"


def test_restore_replacing_messages_brings_back_the_update_the_answer_dropped() -> None:
    system = {"role": "system", "content": "Rules:\n- Use Python 3.11"}
    update = {"role": "user", "content": "New rules:\n- Use Python 3.12 (replaces Use Python 3.11)"}
    history = [system, GOAL, update, call("c1"), result("c1"), NEXT]
    after = [system, GOAL, NEXT]
    facts = {"constraints": ["Use Python 3.12"], "superseded_constraints": ["Use Python 3.11"]}
    assert "constraints_preserved" in broken(history, after, declared=facts)
    edit = applied(constraints.restore_replacing_messages, history, after, declared=facts)
    assert edit is not None
    assert edit.side.units == [system, GOAL, update, NEXT]
    assert broken(history, edit.side.units, declared=facts) == []
