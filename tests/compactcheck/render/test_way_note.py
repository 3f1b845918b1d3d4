"""Which of a law's distinct ways a violation panel shows, and how many more the run met."""

from __future__ import annotations

from compactcheck.render._digest import way_note
from compactcheck.report.model import Counterexample, InvariantResult


def _example(way: str, failed: int) -> Counterexample:
    return Counterexample(
        round=1, because=way, witness=[], input=None, history_size=2, way=way, failed=failed
    )


def _result(examples: list[Counterexample], ways: int) -> InvariantResult:
    return InvariantResult(
        invariant="constraints_preserved",
        statement="",
        verdict="violation",
        examples=10,
        exercised=10,
        counterexample=examples[0],
        other_ways=examples[1:],
        ways=ways,
    )


def test_one_way_says_nothing() -> None:
    only = _example("a", 3)
    assert way_note(_result([only], 1), only) == ""


def test_each_way_is_numbered_with_its_rounds_and_the_ways_not_kept_are_said() -> None:
    kept = [_example(way, count) for way, count in zip("abcd", (5, 1, 2, 2), strict=True)]
    result = _result(kept, 6)
    assert way_note(result, kept[0]) == "way 1 of 6 (a), 5 rounds; 2 more ways seen, not kept"
    assert way_note(result, kept[1]) == "way 2 of 6 (b), 1 round; 2 more ways seen, not kept"
    assert way_note(_result(kept[:2], 2), kept[1]) == "way 2 of 2 (b), 1 round"
