"""Hand-written histories that keep and that break each messages-view law."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.catalogue import UnknownInvariantError, catalogue, select
from compactcheck.invariants.facts import Budget, Facts, Reading
from compactcheck.invariants.laws.messages import message_size
from compactcheck.invariants.laws.messages.alignment import identity_of
from compactcheck.invariants.laws.messages.mentions import (
    Mention,
    _found_by,
    _polar,
    constraint_mentions,
    token_mentions,
)
from compactcheck.invariants.laws.messages.reading import (
    _CHARS_KEPT,
    _TEXTS,
    _TEXTS_KEPT,
    FactLookup,
    call_ids,
    corpus,
    message_key,
    searchable_parts,
    searchable_text,
)
from compactcheck.invariants.messages import (
    ChatMessage,
    ToolMessage,
    UserMessage,
    content_text,
    parse_messages,
)
from compactcheck.invariants.rulings import retired_on
from compactcheck.invariants.tokens import discriminating, position
from compactcheck.invariants.verdict import Finding
from compactcheck.strategies.messages_view import MessageHistory, message_histories
from compactcheck.strategies.projected import Projected

Message = dict[str, Any]

SYSTEM_TEXT = "You are a coding agent.\nConstraints:\n- [c1] Use Python 3.11"
GOAL_TEXT = "Goal: Fix the login bug\n\nStart with the failing test."
UPDATE_TEXT = "Go on.\n\nNew constraints:\n- [c2] Use Python 3.12 (replaces [c1] Use Python 3.11)"


def system(text: str = SYSTEM_TEXT) -> Message:
    return {"role": "system", "content": text}


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str) -> Message:
    return {"role": "assistant", "content": text}


def calls(*specs: tuple[str, str, dict[str, str]]) -> Message:
    return {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for call_id, name, args in specs
        ],
    }


def result(call_id: str, text: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


HISTORY: list[Message] = [
    system(),
    user(GOAL_TEXT),
    calls(
        ("call_1", "read_file", {"path": "src/auth/login.py"}),
        ("call_2", "grep", {"pattern": "login"}),
    ),
    result("call_1", "def login(user): ..."),
    result("call_2", "3 matches"),
    assistant("Starting step s2."),
    calls(("call_3", "edit_file", {"path": "app.py"})),
    result("call_3", "wrote app.py"),
    user(UPDATE_TEXT),
    assistant("Done."),
]

SUMMARY = user(
    "Summary of 6 earlier messages:\n"
    '- assistant called read_file {"path": "src/auth/login.py"} and grep\n'
    "- assistant: Starting step s2.\n"
    '- assistant called edit_file {"path": "app.py"}: wrote app.py'
)

FACTS = Facts(
    goal="Fix the login bug",
    constraints=("Use Python 3.12",),
    superseded_constraints=("Use Python 3.11",),
    must_keep=("app.py", "s2"),
)

GOOD: list[Message] = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[8], HISTORY[9]]
# A faithful compaction that also keeps a call and its result whole, as the laws on kept calls
# and results need to be exercised.
GOOD_KEEPING_A_CALL: list[Message] = [*GOOD[:3], HISTORY[6], HISTORY[7], *GOOD[3:]]


def check(law: str, before: list[Message], after: list[Message], facts: Facts = FACTS) -> Finding:
    (found,) = select("messages", [law])
    return found.check(parse_messages(before), parse_messages(after), facts)


def only_violation(finding: Finding) -> tuple[str, tuple[Any, ...]]:
    assert finding.exercised
    assert len(finding.violations) == 1, finding.violations
    (violation,) = finding.violations
    assert violation.invariant == finding.invariant
    return violation.because, violation.witness


def test_catalogue_lists_every_messages_law() -> None:
    assert [law.id for law in catalogue("messages")] == [
        "tool_pairing",
        "goal_preserved",
        "constraints_preserved",
        "recent_tail_preserved",
        "order_preserved",
        "kept_messages_verbatim",
        "tool_results_unpruned",
        "facts_preserved",
        "non_empty",
        "user_turn_present",
        "user_turn_first",
        "budget_respected",
        "progress",
        "constraints_not_weakened",
        "no_invented_constraints",
    ]


@pytest.mark.parametrize("law", [law.id for law in catalogue("messages")])
def test_a_faithful_compaction_keeps_every_law(law: str) -> None:
    facts = FACTS.model_copy(update={"budget": Budget(limit=7, counter="messages")})
    finding = check(law, HISTORY, GOOD_KEEPING_A_CALL, facts)
    assert finding.holds, finding.violations
    assert finding.exercised


@pytest.mark.parametrize("law", [law.id for law in catalogue("messages")])
def test_the_identity_keeps_every_law(law: str) -> None:
    assert check(law, HISTORY, HISTORY).holds


@pytest.mark.parametrize("law", [law.id for law in catalogue("messages")])
def test_a_check_does_not_mutate_its_input(law: str) -> None:
    before, after = parse_messages(HISTORY), parse_messages(GOOD)
    snapshot = (before, after)
    (found,) = select("messages", [law])
    found.check(before, after, FACTS)
    assert (before, after) == snapshot


# tool_pairing


def test_pairing_flags_a_result_whose_call_was_dropped() -> None:
    after = [HISTORY[0], HISTORY[1], HISTORY[4], HISTORY[8], HISTORY[9]]
    because, witness = only_violation(check("tool_pairing", HISTORY, after))
    assert because == (
        "tool result call_2 at output index 2 has no call before it; its call was in the input "
        "at index 2 and is not in the output"
    )
    assert witness == (HISTORY[2], HISTORY[4])


def test_pairing_flags_a_call_that_lost_its_result() -> None:
    after = [*HISTORY[:4], *HISTORY[5:]]
    because, witness = only_violation(check("tool_pairing", HISTORY, after))
    assert because == (
        "tool call call_2 at output index 2 lost its result: the result was in the input at "
        "index 4 and is not in the output"
    )
    assert witness[1] == HISTORY[4]


def test_pairing_flags_a_result_moved_before_its_call() -> None:
    after = [HISTORY[0], HISTORY[1], HISTORY[7], HISTORY[6], HISTORY[9]]
    because, _ = only_violation(check("tool_pairing", HISTORY, after))
    assert because == (
        "tool result call_3 at output index 2 has no call before it; its call is at output "
        "index 3, after it"
    )


def test_pairing_flags_a_cut_between_parallel_results() -> None:
    after = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[4], *HISTORY[5:]]
    because, _ = only_violation(check("tool_pairing", HISTORY, after))
    assert because.startswith("tool result call_2 at output index 3 has no call before it")


def test_pairing_allows_a_pending_call_without_result() -> None:
    before = [*HISTORY, calls(("call_9", "run_command", {"command": "pytest"}))]
    finding = check("tool_pairing", before, [before[0], before[1], SUMMARY, before[-1]])
    assert finding.holds
    assert finding.exercised


def test_pairing_is_not_exercised_without_tool_calls() -> None:
    before = [system(), user(GOAL_TEXT), assistant("Done.")]
    finding = check("tool_pairing", before, before)
    assert finding.holds
    assert not finding.exercised


# goal_preserved


def test_goal_survives_inside_a_summary() -> None:
    after = [HISTORY[0], user("Summary:\n" + GOAL_TEXT + "\nmore"), HISTORY[9]]
    assert check("goal_preserved", HISTORY, after).holds


def test_goal_lost_when_the_first_user_message_is_cut() -> None:
    after = [HISTORY[0], user("Summary: Goal: Fix the login bug"), HISTORY[9]]
    verbatim = FACTS.model_copy(update={"reading": "verbatim"})
    because, witness = only_violation(check("goal_preserved", HISTORY, after, verbatim))
    assert because == (
        "the first user message (input index 1) does not survive: no output message is it or "
        "contains its text"
    )
    assert witness == (HISTORY[1],)
    finding = check("goal_preserved", HISTORY, after, verbatim)
    assert finding.violations[0].diff is not None


def test_a_summary_that_rewords_the_goal_but_keeps_its_tokens_keeps_it() -> None:
    facts = FACTS.model_copy(update={"goal": "Fix the login bug (AUTH-142)"})
    before = [HISTORY[0], user("Goal: Fix the login bug (AUTH-142)\n\nGo on."), *HISTORY[2:]]
    reworded = [
        HISTORY[0],
        user("Summary: we are repairing login for ticket AUTH-142."),
        HISTORY[9],
    ]
    assert not check("goal_preserved", before, reworded, facts).violations
    # The same summary without the ticket: the goal's one distinctive token is gone.
    lost = [HISTORY[0], user("Summary: we are repairing the login page."), HISTORY[9]]
    because, _ = only_violation(check("goal_preserved", before, lost, facts))
    assert because == (
        "the first user message (input index 1) does not survive: no output message is it or "
        "contains its goal (no output message holds 'AUTH-142')"
    )
    # Read verbatim, the rewording is a loss too.
    verbatim = facts.model_copy(update={"reading": "verbatim"})
    assert check("goal_preserved", before, reworded, verbatim).violations


def test_goal_is_not_exercised_without_a_user_message() -> None:
    before = [system(), assistant("Done.")]
    assert not check("goal_preserved", before, before).exercised


# constraints_preserved


def test_constraints_flag_a_demoted_system_prompt() -> None:
    after = [user("Summary:\n" + SYSTEM_TEXT), *HISTORY[1:]]
    because, witness = only_violation(check("constraints_preserved", HISTORY, after))
    assert because == (
        "the system message at input index 0 is not a system message in the output: its text "
        "was demoted into the user message at output index 0"
    )
    assert witness == (HISTORY[0], after[0])


def test_constraints_flag_a_missing_system_prompt() -> None:
    because, witness = only_violation(check("constraints_preserved", HISTORY, HISTORY[1:]))
    assert because == "the system message at input index 0 is missing from the output"
    assert witness == (HISTORY[0],)


def test_constraints_accept_a_system_prompt_extended_by_a_summary() -> None:
    after = [system(SYSTEM_TEXT + "\n\nSummary: nothing yet"), *HISTORY[1:]]
    assert check("constraints_preserved", HISTORY, after).holds


def test_constraints_flag_a_lost_current_constraint() -> None:
    after = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[9]]
    finding = check("constraints_preserved", HISTORY, after)
    lost, stale = finding.violations
    assert lost.because == (
        "current constraint 'Use Python 3.12' (input index 8) is missing from the output"
    )
    assert lost.witness == (HISTORY[8],)
    # Without the update, the kept system prompt reads as current again.
    assert stale.because.startswith("superseded constraint 'Use Python 3.11' is asserted as")


def test_constraints_flag_a_stale_constraint_reasserted() -> None:
    stale = user("Summary:\nConstraint: Use Python 3.12\nConstraint: Use Python 3.11")
    after = [HISTORY[0], HISTORY[1], stale, HISTORY[9]]
    because, witness = only_violation(check("constraints_preserved", HISTORY, after))
    assert because == (
        "superseded constraint 'Use Python 3.11' is asserted as current by the user message at "
        "output index 2, though the input had replaced it (input index 8)"
    )
    assert witness == (stale, HISTORY[8])


def test_constraints_accept_a_summary_that_records_the_replacement() -> None:
    summary = user("Summary:\n- [c2] Use Python 3.12 (replaces [c1] Use Python 3.11)")
    after = [HISTORY[0], HISTORY[1], summary, HISTORY[9]]
    assert check("constraints_preserved", HISTORY, after).holds


def test_constraints_do_not_blame_a_stale_value_the_input_still_asserted() -> None:
    # An earlier compaction dropped the update: keeping the prompt as it is invents nothing.
    before = [HISTORY[0], HISTORY[1], HISTORY[9]]
    finding = check("constraints_preserved", before, before)
    assert finding.holds
    assert finding.exercised


def test_constraints_read_by_tokens_accept_a_reworded_summary() -> None:
    reworded = user("Summary:\n- the project now targets Python 3.12, not the older release")
    after = [HISTORY[0], HISTORY[1], reworded, HISTORY[9]]
    # Read by its tokens, the current value is kept (the kept system prompt still reasserts
    # 3.11, as it would with any reading: the update that replaced it is gone).
    verbatim = FACTS.model_copy(update={"reading": "verbatim"})
    lost = check("constraints_preserved", HISTORY, after, verbatim).violations
    assert any("'Use Python 3.12'" in v.because and "missing" in v.because for v in lost)
    read_by_tokens = check("constraints_preserved", HISTORY, after).violations
    assert not any("missing" in v.because for v in read_by_tokens)


def test_a_reworded_replacement_still_reads_as_a_replacement() -> None:
    summary = user("Summary:\n- switched to Python 3.12 (it replaced 3.11)")
    after = [HISTORY[0], HISTORY[1], summary, HISTORY[9]]
    # 3.12 comes first on the line: the current value; 3.11 after it: the replaced one.
    assert check("constraints_preserved", HISTORY, after).holds


def test_a_reworded_stale_value_asserted_alone_is_still_caught() -> None:
    summary = user("Summary:\n- stick with Python 3.12\n- the project targets 3.11")
    after = [HISTORY[0], HISTORY[1], summary, HISTORY[9]]
    because, _ = only_violation(check("constraints_preserved", HISTORY, after))
    assert because.startswith("superseded constraint 'Use Python 3.11' is asserted as current")


def test_the_token_reading_is_never_stricter_than_the_verbatim_one() -> None:
    kept = user("Summary: edited app.py for step s2")
    after = [HISTORY[0], HISTORY[1], kept, HISTORY[9]]
    assert check("facts_preserved", HISTORY, after).holds
    # "s2" inside "s21" is not the token s2, but the text "s2" occurs: what a verbatim reading
    # accepts, the token reading accepts too.
    other = user("Summary: edited app.py for step s21")
    after = [HISTORY[0], HISTORY[1], other, HISTORY[9]]
    verbatim = FACTS.model_copy(update={"reading": "verbatim"})
    assert check("facts_preserved", HISTORY, after, verbatim).holds
    assert check("facts_preserved", HISTORY, after).holds
    gone = user("Summary: edited app.py")
    after = [HISTORY[0], HISTORY[1], gone, HISTORY[9]]
    because, _ = only_violation(check("facts_preserved", HISTORY, after))
    assert because.startswith("must-keep identifier 's2'")


# recent_tail_preserved


def test_tail_flags_a_dropped_last_message() -> None:
    because, witness = only_violation(check("recent_tail_preserved", HISTORY, HISTORY[:-1]))
    assert because == (
        "the last input message (assistant message, input index 9) is not the last output "
        "message; it is not in the output"
    )
    assert witness == (HISTORY[9], HISTORY[8])


def test_tail_flags_a_last_message_moved_up() -> None:
    after = [*HISTORY[:8], HISTORY[9], HISTORY[8]]
    because, _ = only_violation(check("recent_tail_preserved", HISTORY, after))
    assert because.endswith("; it is at output index 8")


def test_tail_lets_a_pending_call_go_but_not_move() -> None:
    pending = calls(("call_9", "run_command", {"command": "pytest"}))
    before = [*HISTORY, pending]
    dropped = check("recent_tail_preserved", before, HISTORY)
    assert dropped.holds
    assert not dropped.exercised
    moved = check("recent_tail_preserved", before, [*HISTORY[:9], before[-1], HISTORY[9]])
    because, _ = only_violation(moved)
    assert because.startswith("the last input message (assistant call call_9, input index 10)")


# order_preserved


def test_order_flags_swapped_messages() -> None:
    after = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[9], HISTORY[8]]
    because, witness = only_violation(check("order_preserved", HISTORY, after))
    assert because == (
        "the user message at output index 4 is out of its input order or repeated; it was "
        "at input index 8, on the wrong side of the assistant message at output index 3 "
        "(input index 9)"
    )
    assert witness == (HISTORY[8], HISTORY[9])


def test_verbatim_flags_a_changed_tool_result() -> None:
    changed = result("call_3", "wrote app.py and tests")
    after = [*HISTORY[:7], changed, *HISTORY[8:]]
    assert check("order_preserved", HISTORY, after).holds
    finding = check("kept_messages_verbatim", HISTORY, after)
    because, witness = only_violation(finding)
    assert (
        because == "the tool result call_3 at output index 7 changed its content from input index 7"
    )
    assert witness == (HISTORY[7], changed)
    assert finding.violations[0].diff is not None


def test_order_accepts_a_summary_around_a_kept_message() -> None:
    # Two gaps, one summary (Haystack's note after the kept current-turn message), or one
    # summary per gap: each stands where messages were dropped, and the kept ones keep order.
    after = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[5], HISTORY[8], HISTORY[9]]
    assert check("order_preserved", HISTORY, after).holds
    two = [HISTORY[0], HISTORY[1], SUMMARY, HISTORY[5], user("Another summary"), *HISTORY[8:]]
    finding = check("order_preserved", HISTORY, two)
    assert finding.exercised
    assert finding.holds, finding.violations


def test_order_flags_a_summary_out_of_place() -> None:
    after = [SUMMARY, HISTORY[0], HISTORY[1], HISTORY[8], HISTORY[9]]
    because, _ = only_violation(check("order_preserved", HISTORY, after))
    assert because == (
        "the user message at output index 0 is not in the input (a summary or a note), but "
        "stands where no input message was dropped: before the first input message, where "
        "nothing was dropped"
    )


def test_order_matches_repeated_messages_around_the_summary() -> None:
    before = [system(), user("Go on."), assistant("Done."), user("x"), assistant("Done.")]
    after = [before[0], before[1], user("Summary of two messages"), before[4]]
    finding = check("order_preserved", before, after)
    assert finding.holds
    assert finding.exercised


def test_order_allows_pure_trimming() -> None:
    after = [HISTORY[0], *HISTORY[8:]]
    assert check("order_preserved", HISTORY, after).holds


# facts_preserved


def test_facts_flag_a_lost_changed_file() -> None:
    summary = user("Summary: read login.py, started step s2, edited a file")
    after = [HISTORY[0], HISTORY[1], summary, HISTORY[8], HISTORY[9]]
    because, witness = only_violation(check("facts_preserved", HISTORY, after))
    assert because == (
        "must-keep identifier 'app.py' (first at input index 6) appears nowhere in the output"
    )
    assert witness == (HISTORY[6],)


def test_facts_only_demand_what_the_input_had() -> None:
    facts = FACTS.model_copy(update={"must_keep": ("never/mentioned.py",)})
    finding = check("facts_preserved", HISTORY, GOOD, facts)
    assert finding.holds
    assert not finding.exercised


# non_empty, user_turn_present


def test_non_empty_flags_an_empty_output() -> None:
    because, witness = only_violation(check("non_empty", HISTORY, []))
    assert because == (
        "the output is empty although the input had 10 messages, the last a assistant message "
        "at index 9"
    )
    assert witness == (HISTORY[9],)


def test_user_turn_flags_an_output_without_users() -> None:
    after = [HISTORY[0], HISTORY[9]]
    because, witness = only_violation(check("user_turn_present", HISTORY, after))
    assert because == (
        "no user message remains in the 2 output messages; the input had 2, the first at index 1"
    )
    assert witness == (HISTORY[1],)


# budget_respected


def test_budget_is_not_exercised_without_a_budget() -> None:
    finding = check("budget_respected", HISTORY, HISTORY)
    assert finding.holds
    assert not finding.exercised


def test_budget_flags_too_many_messages() -> None:
    facts = FACTS.model_copy(update={"budget": Budget(limit=4, counter="messages")})
    finding = check("budget_respected", HISTORY, GOOD, facts)
    because, witness = only_violation(finding)
    assert because.startswith("the output measures 5 messages against a budget of 4")
    assert len(witness) == 5


@pytest.mark.parametrize("law", ["budget_respected", "progress"])
def test_a_budget_the_last_result_and_its_call_alone_exceed_asks_nothing(law: str) -> None:
    # The last message is a tool result of 4,000 characters: kept verbatim with its call
    # (recent_tail_preserved, tool_pairing), it is over 1,000 tokens by itself.
    before = [*HISTORY[:6], calls(("call_9", "read_file", {"path": "big.log"}))]
    before.append(result("call_9", "x" * 4000))
    floor = message_size(parse_messages(before[-2:]), "approx_tokens")
    for limit, judged in ((floor - 1, False), (floor, True)):
        facts = FACTS.model_copy(update={"budget": Budget(limit=limit, counter="approx_tokens")})
        finding = check(law, before, before, facts)
        assert finding.exercised is judged, (limit, finding)
    # A last message that makes calls may be dropped, so it asks for nothing of the budget.
    pending = [*HISTORY[:6], calls(("call_9", "write_file", {"text": "y" * 4000}))]
    tight = FACTS.model_copy(update={"budget": Budget(limit=100, counter="approx_tokens")})
    assert check(law, pending, pending, tight).exercised


def test_message_size_counts_tool_call_arguments() -> None:
    messages = parse_messages([user("abcd"), calls(("c", "edit_file", {"path": "a"}))])
    arguments = len(json.dumps({"path": "a"}))
    assert message_size(messages, "messages") == 2
    assert message_size(messages, "characters") == 4 + arguments
    assert message_size(messages, "approx_tokens") == -(-(4 + arguments) // 4)


def test_laws_judge_a_long_history() -> None:
    # Speed is measured in benchmarks, not here: this checks the laws' answers at scale.
    body: list[Message] = []
    for index in range(6000):
        body += [
            calls((f"call_{index}", "read_file", {"path": f"f{index}.py"})),
            result(f"call_{index}", "ok"),
            assistant("Done."),
        ]
    before = [system(), user(GOAL_TEXT), *body, user(UPDATE_TEXT)]
    after = [before[0], before[1], SUMMARY, *before[-3000:]]
    parsed_before, parsed_after = parse_messages(before), parse_messages(after)
    facts = FACTS.model_copy(update={"budget": Budget(limit=10**9)})
    findings = {
        law.id: law.check(parsed_before, parsed_after, facts) for law in catalogue("messages")
    }
    # The kept tail starts on a tool result whose call was summarised away: exactly one orphan.
    [orphan] = findings["tool_pairing"].violations
    assert "has no call before it" in orphan.because
    assert findings["goal_preserved"].holds
    assert findings["non_empty"].holds
    assert findings["recent_tail_preserved"].holds


# progress


def test_progress_is_not_exercised_without_a_budget_or_under_it() -> None:
    assert not check("progress", HISTORY, HISTORY).exercised
    roomy = FACTS.model_copy(update={"budget": Budget(limit=len(HISTORY), counter="messages")})
    assert not check("progress", HISTORY, HISTORY, roomy).exercised


def test_progress_flags_an_input_over_budget_handed_back_unchanged() -> None:
    tight = FACTS.model_copy(update={"budget": Budget(limit=5, counter="messages")})
    because, _ = only_violation(check("progress", HISTORY, HISTORY, tight))
    assert because.startswith(f"the input measures {len(HISTORY)} messages, over the budget of 5")


def test_progress_holds_when_the_output_shrinks_even_if_still_over_budget() -> None:
    tight = FACTS.model_copy(update={"budget": Budget(limit=2, counter="messages")})
    finding = check("progress", HISTORY, GOOD, tight)
    assert finding.exercised
    assert finding.holds


def test_order_accepts_a_new_placeholder_that_repeats_a_kept_one_word_for_word() -> None:
    # A head-and-tail compactor keeps its earlier "Skipped" note in the head and writes an
    # identical one for the new gap: the second copy is new, not a kept message moved.
    note = assistant("Skipped 3 messages.")
    before = [HISTORY[0], HISTORY[1], note, assistant("one"), assistant("two"), user("go on")]
    after = [HISTORY[0], HISTORY[1], note, note, user("go on")]
    finding = check("order_preserved", before, after)
    assert finding.exercised
    assert finding.holds, finding.violations


def test_order_still_flags_a_kept_message_moved_when_no_copy_is_extra() -> None:
    before = [HISTORY[0], HISTORY[1], assistant("one"), assistant("two")]
    after = [HISTORY[0], HISTORY[1], assistant("two"), assistant("one")]
    assert not check("order_preserved", before, after).holds


def test_an_unknown_view_is_an_error_not_an_empty_selection() -> None:
    with pytest.raises(UnknownInvariantError, match="unknown view 'message'"):
        select("message")  # type: ignore[call-overload]


def _mentions_line_by_line(messages: Any, texts: list[str]) -> dict[str, Any]:
    """token_mentions' reading done the plain way: every line of every message, every text."""
    keys = {t: discriminating(t, [o for o in texts if o != t]) for t in texts}
    # Negation words read as one ("never" and "don't" are both "not"), on the lines too.
    keys = {t: _found_by(key) for t, key in keys.items()}
    last: dict[str, Any] = {}
    for index, message in enumerate(messages):
        for line in content_text(message.content).splitlines():
            hits = sorted(
                (at, t)
                for t in texts
                if keys[t] and (at := position(keys[t], _polar(line))) is not None
            )
            # A constraint the line names only to retire it is not the one it asserts.
            named = [t for _, t in hits]
            asserted = [
                t
                for t in named
                if not (len(named) > 1 and retired_on(t, line, [o for o in named if o != t]))
            ]
            for t in named:
                last[t] = Mention(index, bool(asserted) and asserted[0] == t)
    return last


_PIECES = st.sampled_from(
    ["Use", "Python", "python", "3.11", "3.12", "never", "push", "to", "main", "Main", " ",
     "\n", "\r\n", ".", "x", "İ", "(replaces", "Keep", "coverage", "90%", "login.py", ".bak"]
)  # fmt: skip
_CONSTRAINTS = st.sampled_from(
    ["Use Python 3.11", "Use Python 3.12", "Never push to main", "Keep coverage above 90%",
     "Do not touch login.py"]
)  # fmt: skip
# Messages made of those pieces and constraints, each message a list of them joined.
_MESSAGE_PIECES = st.lists(st.lists(st.one_of(_PIECES, _CONSTRAINTS), max_size=24), max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    _MESSAGE_PIECES,
    st.lists(_CONSTRAINTS, max_size=4, unique=True),
    st.sets(_CONSTRAINTS),
)
def test_token_mentions_reads_as_a_line_by_line_walk(
    pieces: list[list[str]], texts: list[str], wanted: set[str]
) -> None:
    # The law finds the lines to read by searching whole messages (only for the wanted texts,
    # when it asks for some); a plain walk of every line must read the same mentions.
    messages = [UserMessage(content="".join(parts)) for parts in pieces]
    plain = _mentions_line_by_line(messages, texts)
    assert token_mentions(messages, texts) == plain
    asked = {text: mention for text, mention in plain.items() if text in wanted}
    assert token_mentions(messages, texts, wanted) == asked


@settings(max_examples=300, deadline=None)
@given(
    _MESSAGE_PIECES,
    st.lists(_CONSTRAINTS, max_size=4),
    st.sets(_CONSTRAINTS),
)
def test_constraint_mentions_of_some_texts_read_as_of_all(
    pieces: list[list[str]], texts: list[str], wanted: set[str]
) -> None:
    # Texts may repeat here: each copy ranks on a line, as the law's list of texts may hold one
    # constraint twice (current and superseded alike).
    messages = [UserMessage(content="".join(parts)) for parts in pieces]
    every = constraint_mentions(messages, texts)
    asked = {text: mention for text, mention in every.items() if text in wanted}
    assert constraint_mentions(messages, texts, wanted) == asked


def test_a_fact_lookup_is_reused_only_for_the_very_same_tuple() -> None:
    said = (UserMessage(content="Fix AUTH-142 in login.py"),)
    assert FactLookup.of(said, "tokens") is FactLookup.of(said, "tokens")
    assert FactLookup.of(said, "tokens") is not FactLookup.of(said, "verbatim")
    # An equal tuple built anew is read anew, and a list, which can change, is never reused.
    assert FactLookup.of(tuple(list(said)), "tokens") is not FactLookup.of(said, "tokens")
    edited = list(said)
    assert FactLookup.of(edited, "tokens").holds("login.py")
    edited[0] = UserMessage(content="Fix AUTH-142")
    assert not FactLookup.of(edited, "tokens").holds("login.py")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.one_of(_PIECES, _CONSTRAINTS), max_size=12), min_size=1, max_size=4),
    st.lists(st.one_of(_CONSTRAINTS, _PIECES), max_size=8),
    st.sampled_from(["tokens", "verbatim"]),
)
def test_a_fact_lookup_answers_again_as_it_answered_first(
    pieces: list[list[str]], facts: list[str], reading: Reading
) -> None:
    # ``holds`` keeps its answers and goes to the tokens without a second verbatim search; asked
    # again, in any order, it must say what a fresh lookup's verbatim text or ``holding`` says.
    messages = tuple(UserMessage(content="".join(parts)) for parts in pieces)
    lookup = FactLookup(messages, reading)
    asked = [*facts, *reversed(facts)]

    def afresh(fact: str) -> bool:
        fresh = FactLookup(messages, reading)
        return fact in fresh.text or (reading == "tokens" and fresh.holding(fact) is not None)

    assert [lookup.holds(fact) for fact in asked] == [afresh(fact) for fact in asked]
    assert [lookup.said(fact) for fact in asked] == [afresh(fact) for fact in asked]


def _parts_text(message: ChatMessage) -> str:
    return "\x00".join(searchable_parts(message))


def test_searchable_texts_kept_by_identity_are_each_messages_own() -> None:
    # searchable_text keeps texts by message identity: many short-lived messages (whose ids are
    # reused once they are gone) and equal messages must each read as their own parts.
    for round_ in range(3):
        for index in range(3 * _TEXTS_KEPT // 2):
            message = ToolMessage(tool_call_id=f"call_{index}", content=f"{round_}:{index}")
            assert searchable_text(message) == _parts_text(message)
            assert searchable_text(message) == f"{round_}:{index}\x00call_{index}"
    kept = [parse_messages(HISTORY) for _ in range(2)]
    for messages in kept:
        assert corpus(messages) == "\x00".join(
            part for message in messages for part in searchable_parts(message)
        )
        assert [searchable_text(m) for m in messages] == [_parts_text(m) for m in messages]
    assert len(_TEXTS) <= _TEXTS_KEPT


def test_searchable_texts_kept_hold_a_bounded_number_of_characters() -> None:
    # A guard in a long-lived agent reads big tool results: the kept texts stay under a bound of
    # characters (a few large messages), not only of messages, and each still reads as its own.
    size = _CHARS_KEPT // 3
    for index in range(8):
        message = ToolMessage(tool_call_id=f"call_{index}", content=str(index % 10) * size)
        assert searchable_text(message) == _parts_text(message)
        assert sum(len(text) for _, text in _TEXTS.values()) <= _CHARS_KEPT
    huge = ToolMessage(tool_call_id="call_huge", content="x" * (_CHARS_KEPT + 1))
    assert searchable_text(huge) == _parts_text(huge)
    assert all(kept is not huge for kept, _ in _TEXTS.values())


def _identity(message: ChatMessage) -> str | None:
    """What ties a changed message to its original, read off the message itself."""
    if isinstance(message, ToolMessage):
        return f"result:{message.tool_call_id}"
    ids = call_ids(message)
    return f"calls:{','.join(ids)}" if ids else None


@settings(max_examples=100, deadline=None)
@given(message_histories())
def test_a_message_identity_reads_off_its_key_as_off_the_message(
    projected: Projected[MessageHistory],
) -> None:
    # order_preserved ties a changed message to its original by an identity it reads off the
    # message's key; it must be the one the message's own result id or call ids give.
    for message in (*projected.view.messages, *parse_messages(HISTORY)):
        assert identity_of(message_key(message)) == _identity(message)


@settings(max_examples=100, deadline=None)
@given(message_histories())
def test_a_message_searchable_text_is_its_parts_joined(
    projected: Projected[MessageHistory],
) -> None:
    # A message that is its text alone is read without joining or keeping anything; every kind
    # (text parts, tool calls, results, names) must still read as its parts joined.
    messages = (
        *projected.view.messages,
        *parse_messages(HISTORY),
        UserMessage(content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        UserMessage(content="ask", name="alice"),
    )
    for message in messages:
        assert searchable_text(message) == _parts_text(message)
