"""Hypothesis strategies: one scenario generator, projected into every view."""

from strategies.messages_view import MessageHistory, message_histories, project_messages
from strategies.projected import Projected
from strategies.scenario import GroundTruth, Scenario
from strategies.scenarios import scenarios
from strategies.snapshot_view import SnapshotHistory, project_snapshot, snapshot_histories
from strategies.statistics import (
    FEATURES,
    FeatureStatistics,
    feature_statistics,
    format_statistics,
    scenario_features,
)

__all__ = [
    "FEATURES",
    "FeatureStatistics",
    "GroundTruth",
    "MessageHistory",
    "Projected",
    "Scenario",
    "SnapshotHistory",
    "feature_statistics",
    "format_statistics",
    "message_histories",
    "project_messages",
    "project_snapshot",
    "scenario_features",
    "scenarios",
    "snapshot_histories",
]
