"""The distinctive tokens of a fact, and looking facts up by them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants.tokens import TokenIndex, discriminating, fact_tokens, position
from compactcheck.strategies.vocabulary import CONSTRAINTS, GOALS


def test_facts_are_read_by_what_names_something() -> None:
    assert fact_tokens("Use Python 3.11") == ("Python", "3.11")
    assert fact_tokens("Keep test coverage above 90%") == ("90%",)
    assert fact_tokens("Write no new dependencies into pyproject.toml") == ("pyproject.toml", "no")
    assert fact_tokens("Fix the login bug (AUTH-142)") == ("AUTH-142",)
    # A capital that opens a sentence, a line or a label is grammar, not a name.
    assert fact_tokens("Goal: Fix it. Then go on.\nPatch") == ("goal", "fix", "patch")
    # No name at all: the content words, negations included.
    assert fact_tokens("Never push to main") == ("never", "push", "main")


def test_every_planted_goal_and_constraint_has_tokens() -> None:
    for text in (*GOALS, *CONSTRAINTS):
        assert fact_tokens(text), text


def test_a_negation_is_part_of_the_fact() -> None:
    index = TokenIndex("the public API may change")
    assert not index.holds("Do not touch the public API")
    assert index.missing("Do not touch the public API") == ["not"]


def test_tokens_are_whole_and_names_keep_their_case() -> None:
    index = TokenIndex("targets python 3.12 and src/auth/login.py.bak")
    assert not index.holds("Use Python 3.12")
    assert not index.holds("Edit src/auth/login.py")
    assert TokenIndex("Python 3.12 it is").holds("Use Python 3.12")


def test_a_value_is_told_from_its_replacement_by_what_differs() -> None:
    assert discriminating("Use Python 3.11", ["Use Python 3.12"]) == ("3.11",)
    assert discriminating("Use Python 3.11", ["Use Python 3.11"]) == ("Python", "3.11")
    assert position(("3.11",), "3.12 (replaces 3.11)") == 15
    assert position(("3.11", "Python"), "3.11 only") is None


@given(st.sampled_from([*GOALS, *CONSTRAINTS]), st.text(max_size=40))
def test_a_fact_is_held_wherever_it_occurs_verbatim(fact: str, around: str) -> None:
    assert TokenIndex(f"{around} {fact} {around}").holds(fact)
