"""The token trigger and the safe-boundary test."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants import ContextUsage
from compactcheck.reference_engine.snapshot import is_safe_boundary, should_compact, trigger_tokens


def usage(used: int, window: int = 100_000, reserved: int = 10_000) -> ContextUsage:
    return ContextUsage(
        estimated_input_tokens=used, context_window_tokens=window, reserved_output_tokens=reserved
    )


def test_seed_example_triggers_at_72000() -> None:
    assert trigger_tokens(usage(0)) == 72_000
    assert should_compact(usage(82_000))
    assert should_compact(usage(72_000))
    assert not should_compact(usage(71_999))


@given(st.integers(0, 10**12), st.integers(0, 10**12), st.integers(0, 10**12))
def test_trigger_is_the_floor_of_eighty_percent(used: int, window: int, reserved: int) -> None:
    expected = math.floor((window - reserved) * Fraction(4, 5))
    assert trigger_tokens(usage(used, window, reserved)) == expected
    assert should_compact(usage(used, window, reserved)) == (used >= expected)


def test_safe_boundary_needs_a_running_agent_with_nothing_pending() -> None:
    assert is_safe_boundary("running", 0, 0)
    assert not is_safe_boundary("running", 1, 0)
    assert not is_safe_boundary("running", 0, 1)
    for status in ("waiting_for_user", "paused", "completed", "failed"):
        assert not is_safe_boundary(status, 0, 0)
