"""The way a law was broken: the kind of its because, facts and positions left out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants import Finding, Violation
from compactcheck.invariants.ways import way_of, ways

LAW = "constraints_preserved"


@given(
    st.text(alphabet=st.characters(exclude_characters="'\"\\\n"), max_size=30), st.integers(0, 999)
)
def test_the_fact_and_the_index_are_not_part_of_the_way(fact: str, index: int) -> None:
    because = f"current constraint {fact!r} (input index {index}) is missing from the output"
    assert way_of(because) == "current constraint '…' (input index N) is missing from the output"


def test_an_apostrophe_inside_a_word_opens_no_quote() -> None:
    assert way_of("the output isn't 'x' and doesn't say 'y'") == (
        "the output isn't '…' and doesn't say '…'"
    )


def test_roles_and_kinds_are_distinct_ways() -> None:
    demoted = (
        "the system message at input index {} was demoted into the {} message at output index 0"
    )
    assert way_of(demoted.format(1, "user")) == way_of(demoted.format(7, "user"))
    assert way_of(demoted.format(1, "user")) != way_of(demoted.format(1, "assistant"))
    assert way_of(demoted.format(1, "user")) != way_of(
        "the system message at input index 1 is missing"
    )


def test_a_finding_splits_into_its_ways_each_with_its_violation_first() -> None:
    missing = [
        Violation(LAW, f"current constraint 'c{i}' (input index {i}) is missing") for i in (1, 2)
    ]
    lost = Violation(LAW, "the system message at input index 0 is missing from the output")
    split = ways(Finding(LAW, True, (missing[0], lost, missing[1])))
    assert list(split) == [way_of(missing[0].because), way_of(lost.because)]
    first, second = split.values()
    assert first.violations[0] is missing[0]
    assert second.violations[0] is lost
    # Every violation stays on each: a witness of one way still says what else was wrong.
    assert set(second.violations) == {missing[0], lost, missing[1]}
