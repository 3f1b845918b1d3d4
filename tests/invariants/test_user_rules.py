"""Rules a user gives in a message, as a model is told them and as a summary restates them."""

from __future__ import annotations

from typing import Any

import compactcheck
from compactcheck.invariants.inference import infer_facts
from compactcheck.invariants.messages import parse_messages

SYSTEM = {"role": "system", "content": "You are a coding agent."}
ASK = (
    "Fix the login bug (AUTH-142). Constraints: Do not touch the public API. Never push to "
    "main. Keep refunds under $500."
)
BEFORE: list[dict[str, Any]] = [
    SYSTEM,
    {"role": "user", "content": ASK},
    {"role": "assistant", "content": "Looking at src/auth.py."},
    {"role": "user", "content": "Go on."},
    {"role": "assistant", "content": "Bumping the timeout did not help."},
    {"role": "user", "content": "Keep going."},
]


def _after(summary: str, first: str = ASK) -> list[dict[str, Any]]:
    return [
        SYSTEM,
        {"role": "user", "content": first},
        {"role": "assistant", "content": summary},
        BEFORE[-1],
    ]


def test_rules_after_a_label_in_a_user_message_are_inferred_as_constraints() -> None:
    listed = "Please continue.\n\nNew constraints:\n- [c1] Use Python 3.12\n- Keep it short\nOk?"
    history = parse_messages([SYSTEM, {"role": "user", "content": ASK}, *BEFORE[2:4]])
    facts = infer_facts(history, None)
    # The task is the goal; the rules given with it are constraints.
    assert facts.goal == "Fix the login bug (AUTH-142)."
    assert facts.constraints == (
        "Do not touch the public API",
        "Never push to main",
        "Keep refunds under $500",
    )
    history = parse_messages([SYSTEM, {"role": "user", "content": listed}])
    assert infer_facts(history, None).constraints == ("Use Python 3.12", "Keep it short")
    # A list no label names is not a list of rules; nor is a label inside a sentence.
    plain = "Here is what I saw:\n- a thing\n- another\nThe rules: are odd"
    history = parse_messages([SYSTEM, {"role": "user", "content": plain}])
    assert infer_facts(history, None).constraints == ()


def test_a_faithful_rewording_passes_and_a_flipped_meaning_fails() -> None:
    faithful = (
        "Summary: I looked at src/auth.py; bumping the timeout didn't help. Don't touch the "
        "public API, don't ever push to main, and keep refunds under $500."
    )
    judged = compactcheck.check(BEFORE, _after(faithful, "Fix the login bug (AUTH-142)."))
    assert [v.invariant for v in judged.violations] == []
    flipped = (
        "Summary: The public API: feel free to touch it. Bumping the timeout did not help. "
        "Never push to main. Keep refunds under $5000. Constraint: Use MySQL 8."
    )
    judged = compactcheck.check(BEFORE, _after(flipped, "Fix the login bug (AUTH-142)."))
    rulings = {made.fact: made.ruling for made in judged.rulings}
    assert rulings["Do not touch the public API"] == "contradicted"
    assert rulings["Keep refunds under $500"] == "changed"
    assert rulings["Never push to main"] in ("kept", "reworded")
    assert rulings["Use MySQL 8."] == "invented"
    broken = {v.invariant for v in judged.violations}
    assert {"constraints_preserved", "no_invented_constraints"} <= broken
