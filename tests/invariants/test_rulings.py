"""The rulings on facts: the labelled corpus, and each example the sentence reading must rule."""

from __future__ import annotations

import pytest

from benchmarks.rulings import DATA, agreement
from compactcheck.invariants.rulings import invented, rule_text, rulings


def test_labelled_corpus_has_no_false_pass_and_few_false_alarms() -> None:
    found = agreement()
    print(found.summary())
    print(found.matrix())
    assert len(found.pairs) >= 200
    assert found.false_passes == []
    assert found.false_alarm_rate < 0.05


@pytest.mark.parametrize("name", ["rulings.jsonl", "wording_dev_extra.jsonl"])
def test_no_certain_ruling_is_wrong_on_the_development_corpora(name: str) -> None:
    # What a law fails or passes on: no certain false alarm, no certain false pass. (How many
    # rows stay unsure is a figure of benchmarks/rulings.py, not a test.)
    found = agreement(DATA / name)
    assert len(found.rows) >= 100
    assert found.certain_false_alarms == []
    assert found.certain_false_passes == []


@pytest.mark.parametrize(
    ("fact", "summary", "expected"),
    [
        # Faithful restatements the token reading flagged as missing.
        ("Do not touch the public API", "Don't touch the public API.", "reworded"),
        ("Never push to main", "Don't ever push to main.", "reworded"),
        ("Write no new dependencies", "Don't add any new dependencies.", "reworded"),
        (
            "Log nothing that contains a user's email",
            "Don't log anything containing a user's email.",
            "reworded",
        ),
        ("Keep functions under 40 lines", "Keep each function under 40 lines.", "reworded"),
        # A negation in another sentence negates nothing.
        (
            "Do not touch the public API",
            "The public API: feel free to touch it. Bumping the timeout did not help.",
            "contradicted",
        ),
        # The natural wording of a change asserts the new value.
        (
            "Use Python 3.12",
            "Python 3.11 no longer applies: the project now targets Python 3.12.",
            "reworded",
        ),
        ("Keep spending under $500", "Keep spending under $5000.", "changed"),
        ("Use Python 3.11", "Use Python 3.12.", "changed"),
        ("Never push to main", "Avoid pushing to main if possible.", "weakened"),
        ("Use only PostgreSQL for storage", "Use PostgreSQL for storage.", "weakened"),
        ("Do not touch the public API", "Do not touch the public API.", "kept"),
        ("Never push to main", "Opened a pull request for the fix.", "dropped"),
    ],
)
def test_quoted_examples_get_their_ruling(fact: str, summary: str, expected: str) -> None:
    assert rule_text(fact, summary) == expected


def test_superseded_value_named_as_retired_is_not_stale() -> None:
    change = "Python 3.11 no longer applies: the project now targets Python 3.12."
    assert rule_text("Use Python 3.11", change, "superseded") == "retired"
    assert rule_text("Use Python 3.11", "The project uses Python 3.11.", "superseded") == "stale"


def test_invented_constraint_is_ruled_invented() -> None:
    found = invented(["Constraint: Use MySQL 8."], ["- Use PostgreSQL 16"], [])
    assert [(r.fact, r.ruling) for r in found] == [("Use MySQL 8.", "invented")]


def test_rulings_cover_goal_constraints_superseded_and_invented() -> None:
    made = rulings(
        ["Fix the login bug in auth/login.py", "- Use Python 3.12"],
        ["Goal: fix the login bug in auth/login.py.\nConstraint: Use MySQL 8.\nUse Python 3.11."],
        "Fix the login bug in auth/login.py",
        ["Use Python 3.12"],
        ["Use Python 3.11"],
    )
    assert [(r.kind, r.ruling) for r in made] == [
        ("goal", "reworded"),
        # The current value "changed" into the superseded one: dropped, and the old one stale.
        ("constraint", "dropped"),
        ("superseded", "stale"),
        ("invented", "invented"),
    ]


def test_messages_fidelity_counts_each_ruling() -> None:
    from compactcheck.invariants.facts import Facts
    from compactcheck.invariants.fidelity import messages_fidelity
    from compactcheck.invariants.messages import SystemMessage, UserMessage

    before = (
        SystemMessage(content="- Do not touch the public API\n- Keep spending under $500"),
        UserMessage(content="Fix the login bug in auth/login.py"),
    )
    after = (
        SystemMessage(content="Rules kept below."),
        UserMessage(
            content="Goal: fix the login bug in auth/login.py. Don't touch the public API. "
            "Keep spending under $5000."
        ),
    )
    facts = Facts(
        goal="Fix the login bug in auth/login.py",
        constraints=("Do not touch the public API", "Keep spending under $500"),
    )
    measured = messages_fidelity(1, before, after, facts)
    assert dict(measured.rulings) == {"reworded": 2, "changed": 1}
    exact = messages_fidelity(1, before, after, facts.model_copy(update={"reading": "verbatim"}))
    assert dict(exact.rulings) == {}
