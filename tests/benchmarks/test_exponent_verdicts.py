"""The exponent target of the benchmarks, read as stated and beside linear work on the host."""

from __future__ import annotations

from benchmarks.scaling import exponent_verdicts


def test_a_step_the_control_also_outgrows_fails_as_stated_but_not_beside_it() -> None:
    line = exponent_verdicts("messages", [0.96, 1.13], [1.11, 1.56], "the control")
    assert "0.96, 1.13, NOT MET as stated" in line
    assert "beside the control (1.11, 1.56), each step at most 1.1 or 0.1 above it: met" in line


def test_a_step_that_outgrows_the_control_fails_both_readings() -> None:
    line = exponent_verdicts("events", [1.05, 1.40], [1.02, 1.10], "the bare walk")
    assert "NOT MET as stated" in line
    assert line.endswith("at most 1.1 or 0.1 above it: NOT MET")


def test_linear_steps_meet_both_readings_even_where_the_control_reads_lower() -> None:
    line = exponent_verdicts("events", [0.53, 0.79], [0.52, 0.67], "the bare walk")
    assert "met as stated" in line
    assert "NOT" not in line
