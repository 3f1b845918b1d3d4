"""Sizes of a round, and the scores that point Hypothesis's targeted search at hard cases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import target

from compactcheck.harness import Case, RoundOutcome

# Where a view's history sits in a round's input or answer: a chat list, events, a session log,
# or the history of a provider request (Anthropic messages, Responses input, Gemini contents).
_HISTORY_KEYS = ("messages", "events", "log", "input", "contents")


def _history(data: Any) -> list[Any] | None:
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("request"), dict):
        data = data["request"]
    for key in _HISTORY_KEYS:
        if isinstance(data.get(key), list):
            return list(data[key])
    return None


def history_size(outcome: RoundOutcome) -> int:
    """How many messages, events or log records a round's input held."""
    history = _history(outcome.input)
    return len(history) if history is not None else 0


def _open_calls(case: Case) -> int:
    scenario = getattr(case, "scenario", None)
    if scenario is None:
        # A piece of a recorded transcript has no scenario to read open calls from.
        return 0
    batch = scenario.pending_batch
    return len(getattr(batch, "calls", ())) if batch is not None else 0


def _sized(value: Any) -> int:
    history = _history(value)
    if history is not None:
        return len(history)
    tail = value.get("rawTail") if isinstance(value, dict) else None
    return (len(tail) + 1) if isinstance(tail, list) else 0


def steer(case: Case, outcomes: Sequence[RoundOutcome]) -> None:
    """Point Hypothesis's targeted search at the hard cases: open, chained, aggressive."""
    judged = [outcome for outcome in outcomes if outcome.judged]
    # No "history length" score: the generator draws long histories itself, and climbing toward
    # length only repeated one history with more routine reads.
    # Scored only where there is something to score: a label whose every score is 0 makes the
    # target phase climb from the plainest history, which the generator now never leaves open.
    if open_calls := _open_calls(case):
        target(float(open_calls), label="open tool calls at the cut")
    target(float(len(judged)), label="compaction rounds")
    ratios = [
        1.0 - _sized(o.output) / size
        for o in judged
        if (size := history_size(o)) > 0 and _sized(o.output) > 0
    ]
    # The most aggressive compaction of the case: the one most likely to drop what it must keep.
    target(max(ratios, default=0.0), label="compaction ratio")
