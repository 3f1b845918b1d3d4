"""The case-strategy benchmark times our own Python on the cases Hypothesis drew: replaying a
case's recorded draws builds that same case."""

from __future__ import annotations

import pytest

from benchmarks.case_strategy import _recorded, _replayer, ours_ms
from compactcheck.harness.cases import cases
from compactcheck.invariants import View


@pytest.mark.parametrize("view", ["messages", "snapshot"])
def test_replaying_a_cases_draws_builds_the_same_case(view: View) -> None:
    choices, draws = _recorded(cases(3, view), 30)
    assert choices > 10
    assert len(draws) >= 25
    for case in draws:
        assert _replayer(case)() == case[0].value
    assert ours_ms(draws[:5]) > 0
