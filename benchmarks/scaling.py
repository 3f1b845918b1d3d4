"""How a time grows with its input: the scaling exponent, and its target read beside a control.

The checker and the laws are held to linear work: 10x the input costs at most 10**1.1 x. A
step's exponent is read as stated and beside a control (linear work over the same data, timed
in the same run), whose own exponent is the host's at those sizes.
"""

from __future__ import annotations

import math

# The checker's goal (the speed issue): linear work, so 10x the input costs at most 10**1.1 x.
MAX_EXPONENT = 1.1


def exponent(small: float, large: float, ratio: float = 10.0) -> float:
    """The scaling exponent k of t ~ n**k between two sizes ``ratio`` apart."""
    return math.log(large / small) / math.log(ratio)


def step_exponents(sizes: list[int], times: list[float]) -> list[float | None]:
    """Each size's scaling exponent from the size before it (none for the first)."""
    return [None] + [
        exponent(small, large, size / before)
        for before, size, small, large in zip(sizes, sizes[1:], times, times[1:], strict=False)
    ]


def shown(value: float | None) -> str:
    """An exponent as printed in a table (blank for the first row)."""
    return "" if value is None else f"{value:.2f}"


def verdict(met: bool) -> str:
    """How a target reads in the output: met or NOT MET."""
    return "met" if met else "NOT MET"


def exponent_verdicts(unit: str, ours: list[float], control: list[float], name: str) -> str:
    """The exponent target read twice: as the issue states it, and beside linear work here.

    As stated, every step's exponent is at most ``MAX_EXPONENT``. Beside the control (linear
    work over the same data, timed in the same run), a step may also read up to
    ``MAX_EXPONENT - 1`` above the control's at that step: on a host whose caches make linear
    work itself read 1.5 at a step, 1.1 there says nothing about the code, and a step that
    outgrows the control does.
    """
    slack = MAX_EXPONENT - 1.0
    stated = max(ours) <= MAX_EXPONENT
    beside = all(
        mine <= max(MAX_EXPONENT, theirs + slack)
        for mine, theirs in zip(ours, control, strict=True)
    )
    shown = ", ".join(f"{value:.2f}" for value in ours)
    controls = ", ".join(f"{value:.2f}" for value in control)
    return (
        f"target: exponent at most {MAX_EXPONENT} per 10x {unit}: {shown}, "
        f"{verdict(stated)} as stated; beside {name} ({controls}), each step at most "
        f"{MAX_EXPONENT} or {slack:.1f} above it: {verdict(beside)}"
    )
