"""Each rule of evidence the reading rests a certain ruling on, with a faithful and a lossy case.

A certain ruling is a verdict a team acts on: each rule below is pinned by a sentence it must be
sure of and one it must leave for review (or be sure is a loss), written for these tests.
"""

from __future__ import annotations

from compactcheck.invariants.rulings import invented, ruling_of


def _ruled(fact: str, summary: str, kind: str = "constraint") -> tuple[str, str]:
    made = ruling_of(fact, summary, kind)  # type: ignore[arg-type]
    assert made.reason
    return made.ruling, made.certainty


def test_a_number_written_as_a_period_is_no_proof_it_was_lost() -> None:
    assert _ruled("Rotate the on-call every 7 days", "The on-call rotates weekly.")[1] == "unsure"
    assert _ruled("Keep the stand-up to 15 minutes", "The stand-up lasts half an hour.")[1] == (
        "unsure"
    )


def test_a_number_changed_for_another_digit_is_still_certain() -> None:
    assert _ruled("Rotate the on-call every 7 days", "Rotate the on-call every 5 days.") == (
        "changed",
        "certain",
    )
    # A period word beside an amount proves nothing of the amount.
    ruling, certainty = _ruled("Cap refunds at $500", "Refunds are capped at $50 weekly.")
    assert certainty == "certain"
    assert ruling in {"changed", "dropped"}


def test_an_acronym_may_be_written_out() -> None:
    made = _ruled("Mask card numbers in the UI", "Hide card numbers in the user interface.")
    assert made[1] == "unsure"


def test_an_acronym_replaced_by_another_is_certainly_changed() -> None:
    assert _ruled("Deploy to AWS", "Deploy to GCP.") == ("changed", "certain")


def test_a_quoted_rule_framed_as_quoted_is_certain() -> None:
    ruling, certainty = _ruled(
        "Never quote prices in the chat widget",
        'The rule reads: "never quote prices in the chat widget".',
    )
    assert (ruling, certainty) in {("kept", "certain"), ("reworded", "certain")}


def test_a_quoted_rule_the_sentence_narrows_is_unsure() -> None:
    made = ruling_of(
        "Never quote prices in the chat widget",
        'Her instruction \u2014 "never quote prices in the chat widget" \u2014 covered the '
        "old widget only.",
    )
    assert made.certainty == "unsure"
    assert "quoted" in made.reason


def test_a_phrase_of_continuance_is_no_lapse() -> None:
    assert _ruled("Keep functions under 40 lines", "Keep functions under 40 lines, as before.") == (
        "kept",
        "certain",
    )
    # Of a superseded value, "as before" restates it: stale, for certain.
    assert _ruled("Send reports as PDF", "Send reports as PDF, as before.", "superseded") == (
        "stale",
        "certain",
    )


def test_a_lapse_is_never_read_as_continuance() -> None:
    ruling, certainty = _ruled(
        "Keep functions under 40 lines", "We used to keep functions under 40 lines."
    )
    assert not (certainty == "certain" and ruling in {"kept", "reworded"})
    assert _ruled("Send reports as PDF", "Reports go out as PDF, as they used to.", "superseded")[
        1
    ] == ("unsure")


def test_an_unlabelled_rule_the_input_lacks_is_left_for_review() -> None:
    found = invented(
        ["Card numbers are never stored, and every payment goes through Stripe."],
        ["system: - Never store card numbers"],
        ["Never store card numbers"],
    )
    assert [(r.ruling, r.certainty) for r in found] == [("invented", "unsure")]
    assert "Stripe" in found[0].reason
    [added] = invented(
        ["Python 3.12; do not use asyncio."], ["system: - Use Python 3.12"], ["Use Python 3.12"]
    )
    assert added.certainty == "unsure"
    assert "asyncio" in added.fact


def test_context_told_in_the_past_or_in_the_inputs_words_adds_no_rule() -> None:
    assert (
        invented(
            ["Backups run nightly. The user mentioned the old tape drive."],
            ["system: - Run backups nightly"],
            ["Run backups nightly"],
        )
        == []
    )
    # A qualifier beside a fact is the fact weakened (another law's), no rule of its own.
    assert (
        invented(
            ["Where possible, do not touch the public API."],
            ["system: - Do not touch the public API"],
            ["Do not touch the public API"],
        )
        == []
    )


def test_a_past_tense_clause_that_states_a_rule_is_still_read() -> None:
    [added] = invented(
        ["Backups run nightly. The team agreed to never deploy on Fridays."],
        ["system: - Run backups nightly"],
        ["Run backups nightly"],
    )
    assert added.certainty == "unsure"


def test_a_negation_told_in_the_past_is_an_event_not_a_rule() -> None:
    assert (
        invented(
            ["Backups run nightly. Raising the retry count did not help."],
            ["system: - Run backups nightly"],
            ["Run backups nightly"],
        )
        == []
    )
    [added] = invented(
        ["Backups run nightly. Do not raise the retry count."],
        ["system: - Run backups nightly"],
        ["Run backups nightly"],
    )
    assert added.certainty == "unsure"


def test_a_message_cut_short_states_nothing_new() -> None:
    """A tool result cut at 200 characters may end mid-word ("The row fie"): every part of it
    is in an input message, so it can state no rule nobody gave; a new word beside it can."""
    result = "The row field holds the ledger total; retries are capped by the client.\x00call_1"
    cut = "The row fie\x00call_1"
    assert invented([cut], [result], ()) == []
    [added] = invented(["The row fie must be signed.\x00call_1"], [result], ())
    assert added.certainty == "unsure"


def test_a_value_written_apart_from_the_token_that_held_it_is_not_new() -> None:
    """A summary that names line 24 of "docs/index.md:24" adds nothing; 24 nowhere is new."""
    log = "docs/index.md:24:    return queue.token_repo\x00call_3"
    assert invented(["Things we touched: docs/index.md, 24."], [log], ()) == []
    [added] = invented(["Things we touched: docs/index.md, 31."], [log], ())
    assert "'31' is not in the input" in added.reason


def test_a_summary_naming_the_history_it_replaces_states_no_rule() -> None:
    """'Summary of 57 earlier messages' and 'tool result t3: ok' are about the history."""
    history = ["Fix the login bug.", "ok\x00t3"]
    said = ["Summary of 57 earlier messages, replaced by this one:\ntool result t3: ok"]
    assert invented(said, history, ()) == []
    [added] = invented(["Summary of 57 earlier messages. Deploy only on 57 hosts."], history, ())
    assert "'57' is not in the input" in added.reason


def test_a_summary_heading_and_a_list_of_what_it_saw_state_no_rule() -> None:
    history = ["Edit src/cli.py and docs/index.md.", "ok\x00t1"]
    said = ["Summary of the conversation so far. Files and ids seen: src/cli.py, docs/index.md."]
    assert invented(said, history, ()) == []
    assert invented(["Here is a summary of the conversation to date:"], history, ()) == []
    [added] = invented(["Edit src/cli.py by the date."], history, ())
    assert "'date' is not in the input" in added.reason


def test_rules_restated_in_plain_english_prose_add_nothing() -> None:
    history = ["New constraints:\n- Never push to main\n- Keep test coverage above 90%"]
    said = ["Rules which still apply: Never push to main."]
    assert invented(said, history, ()) == []


def test_a_rule_kept_in_one_place_and_said_with_another_value_in_another_is_for_review() -> None:
    # A system prompt kept word for word, and a summary that merged the rules with one value
    # changed: the output now states two versions of one rule.
    both = (
        "Rules: Use Python 3.11. Rules in force: use Python 4.11; and do not touch the public API."
    )
    assert _ruled("Use Python 3.11", both) == ("changed", "unsure")
    assert "both ways" in ruling_of("Use Python 3.11", both).reason
    coverage = "Keep test coverage above 90%. In short: keep test coverage above 91%."
    assert _ruled("Keep test coverage above 90%", coverage) == ("changed", "unsure")


def test_a_rule_kept_beside_a_story_of_another_value_is_certainly_kept() -> None:
    told = "Rules: Use Python 3.11. We tried Python 3.12 once and it broke the build."
    assert _ruled("Use Python 3.11", told) == ("kept", "certain")
    assert _ruled("Use Python 3.11", "Rules: Use Python 3.11.") == ("kept", "certain")


def test_a_rule_kept_in_one_place_and_softened_in_another_is_a_weakening_for_review() -> None:
    # The system prompt kept as it was, and a summary that restates its rule softened: which one
    # the agent follows is for a reader, and the law of weakening is the one that holds it.
    both = "Never push to main. Summary: - [c3] Avoid pushing to main if possible"
    made = ruling_of("Never push to main", both)
    assert (made.ruling, made.certainty) == ("weakened", "unsure")
    assert made.sentence == "Summary: - [c3] Avoid pushing to main if possible"
    assert "both ways" in made.reason
    # A faithful second wording beside the kept one stays a certain keep.
    again = "Never push to main. Pushing to main is not allowed."
    assert _ruled("Never push to main", again) == ("kept", "certain")


def test_a_kept_tool_call_s_arguments_restate_no_rule() -> None:
    # A summary that lost the rule, beside a tool call kept verbatim whose arguments name
    # other values and one of the rule's words: the rule was dropped, not changed by the call.
    from compactcheck.invariants.facts import Facts
    from compactcheck.invariants.laws.messages.constraints import constraints_preserved
    from compactcheck.invariants.messages import parse_messages

    rule = "Answer the user in French"
    call = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_4",
                "type": "function",
                "function": {"name": "grep", "arguments": '{"pattern":"user","path":"src/db.py"}'},
            }
        ],
    }
    result = {"role": "tool", "tool_call_id": "call_4", "content": "3 matches"}
    before = parse_messages(
        [{"role": "user", "content": f"Go on.\n\nNew constraints:\n- [c2] {rule}"}, call, result]
    )
    after = parse_messages(
        [{"role": "user", "content": "The agent worked for a while."}, call, result]
    )
    found = constraints_preserved.check(
        before, after, Facts(goal="Fix the login bug", constraints=[rule])
    )
    [violation] = found.violations
    assert violation.kind == "dropped", violation.because
    assert "call_4" not in violation.because
    # The same words as prose, with another name in the rule's place, are a change.
    said = parse_messages([{"role": "user", "content": "Answer the user in German."}])
    [changed] = constraints_preserved.check(
        before, said, Facts(goal="Fix the login bug", constraints=[rule])
    ).violations
    assert changed.kind == "changed"
