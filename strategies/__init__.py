"""Hypothesis strategies: one scenario generator, projected into every view."""

from compactcheck.strategies.corruption import (
    Corrupted,
    Corruption,
    corrupted_message_histories,
    corrupted_session_histories,
    corrupted_snapshot_histories,
)
from compactcheck.strategies.messages_view import (
    MessageHistory,
    message_histories,
    project_messages,
)
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenario_model import GroundTruth, Scenario
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.session_view import SessionHistory, project_session, session_histories
from compactcheck.strategies.snapshot_view import (
    SnapshotHistory,
    project_snapshot,
    snapshot_histories,
)
from compactcheck.strategies.statistics import (
    FEATURES,
    FeatureStatistics,
    feature_statistics,
    format_statistics,
    scenario_features,
)

__all__ = [
    "FEATURES",
    "Corrupted",
    "Corruption",
    "FeatureStatistics",
    "GroundTruth",
    "MessageHistory",
    "Projected",
    "Scenario",
    "SessionHistory",
    "SnapshotHistory",
    "corrupted_message_histories",
    "corrupted_session_histories",
    "corrupted_snapshot_histories",
    "feature_statistics",
    "format_statistics",
    "message_histories",
    "project_messages",
    "project_session",
    "project_snapshot",
    "scenario_features",
    "scenarios",
    "session_histories",
    "snapshot_histories",
]
