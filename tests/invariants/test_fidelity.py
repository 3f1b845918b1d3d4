"""The fidelity measures on hand-made histories whose survival is known."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants import Facts, parse_messages
from compactcheck.invariants.fidelity import Survival, messages_fidelity
from compactcheck.invariants.plan import PlanStep, TaskPlan

SYSTEM = (
    "You are a coding agent.\nConstraints:\n- [c1] Use Python 3.12 (replaces [c1] Use Python 3.11)"
)


def _call(call_id: str, path: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "edit_file", "arguments": f'{{"path": "{path}"}}'},
            }
        ],
    }


def _history() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Goal: fix the login bug. Keep the API stable."},
        _call("call_1", "src/auth.py"),
        {"role": "tool", "tool_call_id": "call_1", "content": "edited"},
        _call("call_2", "src/session.py"),
        {"role": "tool", "tool_call_id": "call_2", "content": "edited"},
        {"role": "user", "content": "Next: step-3 run the tests."},
    ]


def _facts(**update: Any) -> Facts:
    plan = TaskPlan(
        steps=(
            PlanStep(id="step-1", title="edit", status="completed"),
            PlanStep(id="step-3", title="test", status="pending"),
        )
    )
    facts = Facts(
        goal="fix the login bug",
        constraints=("Use Python 3.12", "Keep the API stable", "Never push to main"),
        superseded_constraints=("Use Python 3.11",),
        plan=plan,
        changed_files=("src/auth.py", "src/session.py", "src/never-mentioned.py"),
        must_keep=("src/auth.py", "src/session.py", "step-3"),
    )
    return facts.model_copy(update=update)


def test_everything_kept_is_a_full_share_and_nothing_reasserted() -> None:
    before = parse_messages(_history())
    measured = messages_fidelity(1, before, before, _facts())
    assert measured.must_keep == Survival(3, 3)
    # "Never push to main" and src/never-mentioned.py are not in the input: not counted.
    assert measured.constraints == Survival(2, 2)
    assert measured.changed_files == Survival(2, 2)
    assert measured.pending == Survival(1, 1)
    assert measured.reasserted == Survival(0, 1)
    assert measured.compression == 1.0


def test_a_tail_that_drops_an_edit_keeps_exactly_what_it_holds() -> None:
    history = _history()
    before = parse_messages(history)
    # The system prompt, the goal, then only the second edit and the last user turn.
    after = parse_messages([history[0], history[1], *history[4:]])
    measured = messages_fidelity(2, before, after, _facts())
    assert measured.round == 2
    assert measured.must_keep == Survival(2, 3)
    assert measured.changed_files == Survival(1, 2)
    assert measured.changed_files.share == 0.5
    assert measured.pending == Survival(1, 1)
    assert measured.constraints == Survival(2, 2)


def test_a_summary_that_states_the_replaced_value_reasserts_it() -> None:
    history = _history()
    before = parse_messages(history)
    summary = {"role": "user", "content": "Summary: Use Python 3.11; edited src/auth.py."}
    after = parse_messages([history[1], summary, history[-1]])
    measured = messages_fidelity(1, before, after, _facts())
    assert measured.reasserted == Survival(1, 1)
    # The current value is gone with the system prompt; the API constraint is in the goal.
    assert measured.constraints == Survival(1, 2)
    assert measured.must_keep == Survival(2, 3)


def test_compression_is_measured_under_the_counter() -> None:
    history = _history()
    before = parse_messages(history)
    after = parse_messages(history[:2])
    assert messages_fidelity(1, before, after, _facts(), "messages").compression == 2 / 7
    by_chars = messages_fidelity(1, before, after, _facts(), "characters")
    assert by_chars.size_out == len(SYSTEM) + len(history[1]["content"])
    assert by_chars.compression is not None
    assert 0 < by_chars.compression < 1


def test_a_kind_the_input_never_held_has_no_share() -> None:
    before = parse_messages([{"role": "user", "content": "hello"}])
    measured = messages_fidelity(1, before, before, Facts(goal="hello", constraints=("x y z",)))
    assert measured.constraints == Survival(0, 0)
    assert measured.share("constraints") is None
    assert measured.share("must_keep") is None


@pytest.mark.parametrize("kind", ["must_keep", "constraints", "pending", "changed_files"])
def test_every_kind_is_read_by_name(kind: str) -> None:
    before = parse_messages(_history())
    assert messages_fidelity(1, before, before, _facts()).share(kind) == 1.0


def _worded(summary: str) -> Any:
    before = parse_messages(
        [
            {"role": "system", "content": "You are a coding agent."},
            {
                "role": "user",
                "content": "Goal: Fix the login bug (AUTH-142)\n\nNew constraints:\n"
                "- [c1] Do not touch the public API\n- [c2] Never push to main",
            },
            {"role": "assistant", "content": "Looking into it."},
            {"role": "user", "content": "Go on."},
        ]
    )
    after = parse_messages(
        [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": summary},
            {"role": "user", "content": "Go on."},
        ]
    )
    facts = Facts(
        goal="Fix the login bug (AUTH-142)",
        constraints=("Do not touch the public API", "Never push to main"),
    )
    return messages_fidelity(1, before, after, facts)


def test_constraints_a_summary_words_as_a_model_does_are_kept() -> None:
    # "never" is not in the summary, nor "do not": by tokens alone both would count as lost,
    # while constraints_preserved rules them reworded and passes.
    measured = _worded(
        "Summary: the user wants me to fix the login bug (AUTH-142). Don't touch the public "
        "API. Don't push to main, ever."
    )
    assert measured.constraints == Survival(2, 2)
    assert measured.rulings["reworded"] == 3


def test_constraints_whose_meaning_flipped_are_not_kept_though_their_words_are_there() -> None:
    measured = _worded(
        "Summary: fix the login bug (AUTH-142). You may touch the public API now. It is fine "
        "to push to main."
    )
    assert measured.constraints == Survival(0, 2)
    assert measured.rulings["contradicted"] == 2
