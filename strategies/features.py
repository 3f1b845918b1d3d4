"""The draws of a provider format's own parts (``Features``) and of the calls that failed."""

from __future__ import annotations

from hypothesis import strategies as st

from compactcheck.strategies.scenario_model import Scenario

# A small range is drawn uniformly, a wide one leans to zero: five digits of three bits come
# from three draws of two digits each.
_DIGITS = st.integers(0, 63)


@st.composite
def feature_values(draw: st.DrawFn) -> int:
    """The integer a ``Features`` reads, shrinking toward 0 (none of a format's own parts)."""
    value = 0
    for shift in (0, 6, 12):
        value |= draw(_DIGITS) << shift
    return value


def failed_calls(scenario: Scenario) -> frozenset[str]:
    """The calls of a scenario whose result is an error (a provider format can mark them)."""
    return frozenset(
        call.call_id for batch in scenario.batches() for call in batch.calls if call.is_error
    )
