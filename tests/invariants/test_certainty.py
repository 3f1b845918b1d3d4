"""Every ruling carries its certainty: certain on mechanical evidence only, else unsure with why."""

from __future__ import annotations

import pytest

from compactcheck.invariants.rulings import invented, ruling_of, rulings


def test_a_fronted_object_taken_up_by_a_pronoun_is_no_flip() -> None:
    # Issue 46's first sentence: once read as "contradicted (polarity flipped)".
    made = ruling_of(
        "Do not touch the public API", "Rule in force: The public API: do not touch it."
    )
    assert (made.ruling, made.certainty) == ("reworded", "certain")
    assert "with its polarity" in made.reason


def test_in_place_of_the_earlier_rule_is_a_replacement_note() -> None:
    # Issue 46's second sentence: the superseded rule was ruled asserted as current.
    summary = (
        "Rule update: Keep functions under 40 lines, in place of the earlier rule: each database "
        "change requires a migration."
    )
    current, old = rulings(
        [],
        [summary],
        None,
        ["Keep functions under 40 lines"],
        ["Each database change requires a migration"],
    )
    assert (current.ruling, current.certainty) == ("kept", "certain")
    assert (old.ruling, old.certainty) == ("retired", "certain")
    assert "in place of the earlier rule" in old.reason


@pytest.mark.parametrize(
    ("fact", "summary", "ruling", "evidence"),
    [
        (
            "Keep spending under $500",
            "Keep spending under $5000.",
            "changed",
            "'$500' appears nowhere",
        ),
        ("Use Python 3.11", "Use Python 3.12.", "changed", "'3.11' appears nowhere"),
        (
            "Do not touch the public API",
            "Fixed the login redirect; tests pass.",
            "dropped",
            "'API'",
        ),
        (
            "Do not touch the public API",
            "Touch the public API as needed.",
            "contradicted",
            "drops its negation",
        ),
        ("Do not touch the public API", "The public API must not be touched.", "reworded", ""),
        ("Do not touch the public API", "The public API stays untouched.", "reworded", ""),
        ("Keep functions under 40 lines", "Functions must not exceed forty lines.", "reworded", ""),
        ("Never push to main", "Don't ever push to main.", "reworded", ""),
    ],
)
def test_mechanical_evidence_is_certain(
    fact: str, summary: str, ruling: str, evidence: str
) -> None:
    made = ruling_of(fact, summary)
    assert (made.ruling, made.certainty) == (ruling, "certain"), made.reason
    assert evidence in made.reason


@pytest.mark.parametrize(
    ("fact", "summary", "why"),
    [
        # A hedge, a lapse, a condition, a word the reading does not know, a reversed bound.
        ("Never push to main", "Avoid pushing to main if possible.", "may soften it"),
        ("Do not touch the public API", "We used to not touch the public API.", "'used'"),
        ("Do not touch the public API", "Don't touch the public API unless asked.", "'unless'"),
        ("Do not touch the public API", "Leave the public API alone: do not modify it.", "no one"),
        ("Do not touch the public API", "The public API is off-limits.", ""),
        ("Keep functions under 40 lines", "Keep functions over 40 lines.", "bounds its value"),
        ("Use only PostgreSQL for storage", "Use PostgreSQL for storage.", "restriction"),
        # A value written otherwise is no proof of a loss.
        ("Keep refunds under $500", "Refunds stay below 500 dollars.", ""),
    ],
)
def test_what_the_reading_cannot_settle_is_unsure_with_a_reason(
    fact: str, summary: str, why: str
) -> None:
    made = ruling_of(fact, summary)
    assert made.certainty == "unsure", made
    assert made.reason
    assert why in made.reason


def test_a_superseded_value_is_read_by_the_output_s_last_word_on_it() -> None:
    replaced = "Use Python 3.11. Update: use Python 3.12 instead of Python 3.11."
    restated = f"{replaced} Constraint: Use Python 3.11."
    (_, old) = rulings([], [replaced], None, ["Use Python 3.12"], ["Use Python 3.11"])
    assert (old.ruling, old.certainty) == ("retired", "certain")
    (_, old) = rulings([], [restated], None, ["Use Python 3.12"], ["Use Python 3.11"])
    assert (old.ruling, old.certainty) == ("stale", "certain")
    gone = rulings([], ["Use Python 3.12."], None, ["Use Python 3.12"], ["Use Python 3.11"])[1]
    assert (gone.ruling, gone.certainty) == ("retired", "certain")
    assert "'3.11', which tells it from its replacement, appears nowhere" in gone.reason


def test_an_invented_claim_is_certain_only_when_nothing_of_it_is_in_the_input() -> None:
    (made,) = rulings(["- Use PostgreSQL 16"], ["Constraint: Use MySQL 8."], None, [], [])
    assert (made.ruling, made.certainty) == ("invented", "certain")
    (made,) = rulings(["The old server ran MySQL."], ["Constraint: Use MySQL 8."], None, [], [])
    assert (made.ruling, made.certainty) == ("invented", "unsure")


INPUT = [
    "user: Fix the login bug in auth.py.",
    "user: Do not touch the public API.",
    "assistant: I read auth.py and found the check.",
]
FACTS = ["Fix the login bug in auth.py", "Do not touch the public API"]


@pytest.mark.parametrize(
    "opener",
    [
        "Here's where things stand.",
        "Here's a recap of our work so far.",
        "Quick status update:",
        "Let me bring you up to speed.",
        "Picking up where we left off:",
        "Summary of what we've done:",
        "Key points to remember:",
        "Open items:",
        "Below is a concise overview of the session.",
        # A rule of the input reworded ("untouched" of "touch") is no new one.
        "The public API: leave it untouched.",
    ],
)
def test_the_openers_a_model_hands_a_history_over_with_state_no_rule(opener: str) -> None:
    # A recap opener once got an item for review ("'where' may make a rule of 'things'") in every
    # round of a faithful summariser's run.
    assert invented([opener], INPUT, FACTS) == []


@pytest.mark.parametrize(
    "added",
    [
        "Keep it brief.",
        "Be concise.",
        "Next, deploy to staging.",
        "Card numbers are never stored.",
        "Progress is reported daily.",
    ],
)
def test_a_new_rule_in_the_words_of_a_recap_is_still_left_for_review(added: str) -> None:
    # "are never stored" was once read as a story of the run (a participle after "never", not
    # after "are"), so a new rule went unseen.
    (made,) = invented([added], INPUT, FACTS)
    assert (made.ruling, made.certainty) == ("invented", "unsure")


def test_fixing_and_fixed_hold_fix() -> None:
    # The lemma dictionary read "fixed", "fixes" and "fixing" as "fixe", no form of "fix".
    goal = "Fix the login bug (AUTH-142)"
    made = ruling_of(goal, "We are fixing the login bug (AUTH-142).", "goal")
    assert (made.ruling, made.certainty) == ("reworded", "certain")
    made = ruling_of("Fix the login bug in auth.py", "The login bug in auth.py is being fixed.")
    assert (made.ruling, made.certainty) == ("reworded", "certain")


@pytest.mark.parametrize(
    "said", ["The public API: leave it untouched.", "Leave the public API untouched."]
)
def test_leave_it_untouched_keeps_a_rule_not_to_touch_it(said: str) -> None:
    # Once leaning "contradicted": "leave" was a word the reading did not know.
    made = ruling_of("Do not touch the public API", said)
    assert (made.ruling, made.certainty) == ("reworded", "certain")
    flipped = ruling_of("Do not touch the public API", "Do not leave the public API untouched.")
    assert flipped.ruling not in ("kept", "reworded") or flipped.certainty == "unsure"


def test_the_user_wants_it_fixed_states_the_goal_and_if_you_want_permits() -> None:
    # "wants" was read as a permission, and "fixed" after it as a story of the past.
    goal = "Please fix the flaky login test in tests/test_auth.py."
    said = "The user wants the flaky login test in tests/test_auth.py fixed."
    made = ruling_of(goal, said, "goal")
    assert (made.ruling, made.certainty) == ("reworded", "certain")
    loose = ruling_of("Do not touch the public API", "Touch the public API if you want.")
    assert (loose.ruling, loose.certainty) != ("reworded", "certain")
