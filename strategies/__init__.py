"""Hypothesis strategies: one scenario generator, projected into every view."""

from strategies.corruption import (
    Corrupted,
    Corruption,
    corrupted_message_histories,
    corrupted_session_histories,
    corrupted_snapshot_histories,
)
from strategies.messages_view import MessageHistory, message_histories, project_messages
from strategies.projected import Projected
from strategies.scenario_model import GroundTruth, Scenario
from strategies.scenarios import scenarios
from strategies.session_view import SessionHistory, project_session, session_histories
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
