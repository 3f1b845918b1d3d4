"""The compactor input is built without validating, yet is what validation builds."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import CompactorInput
from compactcheck.reference_engine.snapshot import SnapshotDesign, compactor_input
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories


def _validated(handed: CompactorInput) -> CompactorInput:
    """The same fields through the validating constructor (what the input was built by before)."""
    fields: dict[str, Any] = {name: getattr(handed, name) for name in CompactorInput.model_fields}
    return CompactorInput(**fields)


@settings(max_examples=150, deadline=None)
@given(snapshot_histories(), st.sampled_from(SnapshotDesign))
def test_the_handed_input_is_what_validation_builds(
    projected: Projected[SnapshotHistory], design: SnapshotDesign
) -> None:
    history = projected.view
    handed = compactor_input(history.state, history.events, design)
    validated = _validated(handed)
    assert handed == validated
    assert handed.__dict__ == validated.__dict__
    assert handed.model_fields_set == validated.model_fields_set
    assert handed.to_json_data() == validated.to_json_data()
    assert CompactorInput.from_json_data(handed.to_json_data()) == handed
