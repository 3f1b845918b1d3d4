"""The generator's promises: every feature occurs, and failing histories shrink to a witness."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, find, settings

from compactcheck.strategies import (
    FEATURES,
    Projected,
    SnapshotHistory,
    feature_statistics,
    format_statistics,
    scenario_features,
    snapshot_histories,
)

MIN_SHARE = 0.05


def test_every_feature_occurs_in_at_least_five_percent_of_scenarios() -> None:
    # Default settings apart from the count: a health-check failure would raise here.
    statistics = feature_statistics(300)
    assert statistics.draws >= 290
    assert statistics.rare(MIN_SHARE) == [], "\n".join(format_statistics(statistics))


def test_statistics_format_lists_every_feature() -> None:
    lines = format_statistics(feature_statistics(20))
    assert lines[0] == "20 scenarios"
    assert all(any(line.strip().startswith(feature) for line in lines) for feature in FEATURES)


def _has_late_parallel_call(projected: Projected[SnapshotHistory]) -> bool:
    late = set(projected.truth.late_call_ids)
    return any(
        len(batch.calls) > 1 and any(call.call_id in late for call in batch.calls)
        for batch in projected.scenario.batches()
    )


def test_a_late_parallel_call_shrinks_to_one_call_pair_and_little_else() -> None:
    witness = find(
        snapshot_histories(),
        _has_late_parallel_call,
        settings=settings(
            max_examples=2000,
            derandomize=True,
            database=None,
            phases=(Phase.generate, Phase.shrink),
            suppress_health_check=(HealthCheck.too_slow,),
        ),
    )
    scenario = witness.scenario
    batches = list(scenario.batches())
    assert len(scenario.turns) == 1
    assert [len(batch.calls) for batch in batches] == [2]
    # The minimum: user input, batch start, two calls, one action to wait behind, two results.
    assert len(witness.view.events) <= 8, witness.view.events
    assert scenario.constraints == ()
    assert len(scenario.plan.steps) == 1
    # Whatever else survives is plan bookkeeping or the action the result waits behind.
    allowed = {"parallel_tool_calls", "late_result", "parallel_late_result", "immediate_result"}
    allowed |= {"turn_without_tool_calls", "failed_tool_result"}
    allowed |= {f"step_{status}" for status in ("pending", "in_progress", "completed")}
    assert scenario_features(scenario) <= allowed, scenario
