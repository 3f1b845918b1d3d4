"""Feature statistics of generated scenarios, so that vacuous generation shows."""

from __future__ import annotations

import math
import statistics as stats
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from compactcheck.invariants.formats.projection import (
    FORMAT_FEATURES,
    Features,
    project_format,
    request_features,
)
from compactcheck.invariants.laws.messages import message_chars
from compactcheck.strategies.features import failed_calls, feature_values
from compactcheck.strategies.messages_view import project_messages
from compactcheck.strategies.plans import STATUSES
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.turns import ToolBatch

# Every feature the generator promises, in the order a report lists them.
FEATURES: Final[tuple[str, ...]] = (
    "several_user_turns",
    "constraints",
    "superseded_constraint",
    "acceptance_criteria",
    *(f"step_{status}" for status in STATUSES),
    "turn_without_tool_calls",
    "single_tool_call",
    "parallel_tool_calls",
    "immediate_result",
    "late_result",
    "parallel_late_result",
    "pending_batch",
    "failed_tool_result",
    "file_edit",
    "validation",
    "failed_attempt",
    "skill_activation",
    "answered_question",
    "pending_question",
    "earlier_compaction",
    "restart",
    "stale_lock",
)


# Sizes at which real compactors trigger, per counter: the share of histories over each is
# the share that can reach size-triggered code at all.
TRIGGERS: Final[tuple[tuple[str, int], ...]] = (
    ("messages", 20),
    ("messages", 40),
    ("messages", 100),
    ("characters", 3_000),
    ("characters", 10_000),
    ("characters", 50_000),
    ("approx_tokens", 8_000),
)


@dataclass(frozen=True)
class HistorySize:
    """The size of a scenario's messages projection under each budget counter."""

    messages: int
    characters: int

    @property
    def approx_tokens(self) -> int:
        """Characters / 4, rounded up, as the messages view's budget counts them."""
        return math.ceil(self.characters / 4)

    def measure(self, counter: str) -> int:
        """The size under one counter: messages, characters or approx_tokens."""
        if counter == "messages":
            return self.messages
        return self.characters if counter == "characters" else self.approx_tokens


def history_size(scenario: Scenario) -> HistorySize:
    """How big the messages view of a scenario is: messages, and characters of their text."""
    messages = project_messages(scenario).messages
    return HistorySize(len(messages), sum(message_chars(message) for message in messages))


def scenario_features(scenario: Scenario) -> frozenset[str]:
    """The features of the generator's promise that one scenario exhibits."""
    found: set[str] = set()
    truth = scenario.truth
    if len(scenario.turns) > 1:
        found.add("several_user_turns")
    if scenario.constraints or any(turn.constraint_changes for turn in scenario.turns):
        found.add("constraints")
    if truth.superseded_constraints:
        found.add("superseded_constraint")
    if scenario.plan.acceptance_criteria:
        found.add("acceptance_criteria")
    found.update(f"step_{step.status}" for step in scenario.plan.steps)
    for turn in scenario.turns:
        if not any(isinstance(action, ToolBatch) for action in turn.actions):
            found.add("turn_without_tool_calls")
        if turn.compacted_before:
            found.add("earlier_compaction")
        if turn.restarted_before:
            found.add("restart")
        if turn.answer is not None:
            found.add("answered_question")
    late = set(truth.late_call_ids)
    for batch in scenario.batches():
        found.add("parallel_tool_calls" if len(batch.calls) > 1 else "single_tool_call")
        for call in batch.calls:
            if call.is_error:
                found.add("failed_tool_result")
            if call.edited_path is not None:
                found.add("file_edit")
            if call.recorded_validation is not None:
                found.add("validation")
            if call.call_id in late and len(batch.calls) > 1:
                found.add("parallel_late_result")
    if set(truth.completed_call_ids) - late:
        found.add("immediate_result")
    if late:
        found.add("late_result")
    if scenario.pending_batch is not None:
        found.add("pending_batch")
    if truth.failed_attempts:
        found.add("failed_attempt")
    if truth.active_skills:
        found.add("skill_activation")
    if truth.pending_question is not None:
        found.add("pending_question")
    if scenario.stale_lock:
        found.add("stale_lock")
    return frozenset(found)


@dataclass(frozen=True)
class FeatureStatistics:
    """How often each feature and each size occurred among ``draws`` scenarios."""

    draws: int
    features: dict[str, int]
    sizes: dict[str, Counter[int]] = field(default_factory=dict)
    histories: tuple[HistorySize, ...] = ()

    def share(self, feature: str) -> float:
        """The fraction of scenarios that exhibit a feature."""
        return self.features.get(feature, 0) / self.draws if self.draws else 0.0

    def rare(self, threshold: float) -> list[str]:
        """Features seen in fewer than ``threshold`` of the scenarios."""
        return [feature for feature in FEATURES if self.share(feature) < threshold]

    def share_over(self, counter: str, limit: int) -> float:
        """The fraction of messages histories larger than ``limit`` under a counter."""
        if not self.histories:
            return 0.0
        over = sum(size.measure(counter) > limit for size in self.histories)
        return over / len(self.histories)


def _sizes(scenario: Scenario) -> dict[str, list[int]]:
    calls_per_turn = []
    calls_per_batch = []
    for turn in scenario.turns:
        batches = [action for action in turn.actions if isinstance(action, ToolBatch)]
        calls_per_turn.append(sum(len(batch.calls) for batch in batches))
        calls_per_batch += [len(batch.calls) for batch in batches]
    return {
        "turns": [len(scenario.turns)],
        "actions_per_turn": [len(turn.actions) for turn in scenario.turns],
        "tool_calls_per_turn": calls_per_turn,
        "tool_calls_per_batch": calls_per_batch,
        "plan_steps": [len(scenario.plan.steps)],
        "size_estimate": [scenario.event_count_estimate()],
    }


def feature_statistics(
    draws: int = 300,
    *,
    strategy: st.SearchStrategy[Scenario] | None = None,
    random_seed: int = 0,
) -> FeatureStatistics:
    """Draw scenarios the way a test would (default settings) and count their features."""
    features: Counter[str] = Counter()
    sizes: dict[str, Counter[int]] = {}
    histories: list[HistorySize] = []
    count = 0

    @seed(random_seed)
    @settings(
        max_examples=draws,
        database=None,
        phases=(Phase.generate,),
        deadline=None,
        suppress_health_check=(HealthCheck.differing_executors,),
    )
    @given(scenarios() if strategy is None else strategy)
    def observe(scenario: Scenario) -> None:
        nonlocal count
        count += 1
        features.update(scenario_features(scenario))
        for name, values in _sizes(scenario).items():
            sizes.setdefault(name, Counter()).update(values)
        histories.append(history_size(scenario))

    observe()
    return FeatureStatistics(count, dict(features), sizes, tuple(histories))


def _spread(values: list[int]) -> str:
    return f"min {min(values):,}  median {stats.median(values):,.0f}  max {max(values):,}"


def format_statistics(statistics: FeatureStatistics) -> list[str]:
    """The statistics as text lines: feature shares, then each size distribution."""
    lines = [f"{statistics.draws} scenarios"]
    width = max(len(feature) for feature in FEATURES)
    for feature in FEATURES:
        share = statistics.share(feature)
        lines.append(f"  {feature:<{width}}  {share:6.1%}  {'#' * round(share * 40)}")
    for name, counter in statistics.sizes.items():
        total = sum(counter.values())
        mean = sum(value * times for value, times in counter.items()) / total if total else 0.0
        spread = "  ".join(f"{value}:{times}" for value, times in sorted(counter.items()))
        lines.append(f"{name}: mean {mean:.2f}  [{spread}]")
    if statistics.histories:
        sizes = statistics.histories
        lines.append("messages histories (messages view):")
        lines.append(f"  messages    {_spread([size.messages for size in sizes])}")
        lines.append(f"  characters  {_spread([size.characters for size in sizes])}")
        for measure, limit in TRIGGERS:
            share = statistics.share_over(measure, limit)
            label = f"over {limit:,} {measure}"
            lines.append(f"  {label:<26}  {share:6.1%}  {'#' * round(share * 40)}")
    return lines


@dataclass(frozen=True)
class FormatStatistics:
    """How often each format's own parts occurred among ``draws`` projected histories."""

    draws: int
    features: dict[str, Counter[str]]

    def share(self, format: str, feature: str) -> float:
        """The fraction of histories of ``format`` that carry ``feature``."""
        return self.features[format][feature] / self.draws if self.draws else 0.0

    def rare(self, threshold: float) -> list[str]:
        """``format: feature`` for each feature seen in fewer than ``threshold`` of histories."""
        return [
            f"{format}: {feature}"
            for format, names in FORMAT_FEATURES.items()
            for feature in names
            if self.share(format, feature) < threshold
        ]


def format_statistics_of(draws: int = 300, *, random_seed: int = 0) -> FormatStatistics:
    """Draw histories as a run of each provider format does and count each format's parts."""
    counted: dict[str, Counter[str]] = {format: Counter() for format in FORMAT_FEATURES}
    count = 0

    @seed(random_seed)
    @settings(
        max_examples=draws,
        database=None,
        phases=(Phase.generate,),
        deadline=None,
        suppress_health_check=(HealthCheck.differing_executors, HealthCheck.too_slow),
    )
    @given(scenarios(late_results=False, pending_calls=False), feature_values())
    def observe(scenario: Scenario, value: int) -> None:
        nonlocal count
        count += 1
        messages = project_messages(scenario).messages
        for format in FORMAT_FEATURES:
            request = project_format(format, messages, Features(value), failed_calls(scenario))
            counted[format].update(request_features(format, request))

    observe()
    return FormatStatistics(count, counted)


def format_statistics_lines(statistics: FormatStatistics) -> list[str]:
    """Each format's parts with the share of histories that carry them."""
    lines = [f"{statistics.draws} histories in each provider format"]
    for format, names in FORMAT_FEATURES.items():
        lines.append(f"{format}:")
        width = max(len(name) for name in names)
        for name in names:
            share = statistics.share(format, name)
            lines.append(f"  {name:<{width}}  {share:6.1%}  {'#' * round(share * 40)}")
    return lines
