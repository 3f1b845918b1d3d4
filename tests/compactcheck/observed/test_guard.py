"""The runtime guard: laws on every (sampled) call, and the caller's choice on a violation."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import compactcheck
from compactcheck.observed.guard import GuardEvent
from compactcheck.reference_engine.messages import reference_messages

Messages = list[dict[str, Any]]

HISTORY: Messages = [
    {"role": "system", "content": "Be careful.\n- Never push to main"},
    {"role": "user", "content": "Fix the login bug"},
    *[
        message
        for n in range(8)
        for message in (
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": f"call_{n}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"call_{n}", "content": "x = 1\n" * 20},
        )
    ],
    {"role": "user", "content": "Go on."},
]


def orphaning(messages: Messages) -> Messages:
    """Drops the middle, the call of the last result included: an orphan result."""
    return [messages[0], messages[1], *messages[-2:]]


def test_a_faithful_compactor_passes_through_and_is_counted() -> None:
    guarded = compactcheck.guard(reference_messages(max_messages=6))
    answer = guarded(HISTORY)
    assert answer == reference_messages(max_messages=6)(HISTORY)
    assert len(answer) < len(HISTORY)
    assert (guarded.stats.calls, guarded.stats.checked, guarded.stats.violated) == (1, 1, 0)
    assert callable(guarded)


def test_raise_names_the_broken_law() -> None:
    guarded = compactcheck.guard(orphaning)
    with pytest.raises(compactcheck.ViolationError, match="tool_pairing: tool result call_7"):
        guarded(HISTORY)
    assert guarded.stats.violated == 1
    assert getattr(guarded, "__name__", None) == "orphaning"


def test_log_returns_the_answer_and_warns_once_per_violation(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guarded = compactcheck.guard(orphaning, on_violation="log", invariants=["tool_pairing"])
    with caplog.at_level(logging.WARNING, logger="compactcheck.guard"):
        answer = guarded(HISTORY)
    assert answer == orphaning(HISTORY)
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        "compaction broke tool_pairing"
    ]


def test_return_input_hands_the_history_back_uncompacted() -> None:
    guarded = compactcheck.guard(orphaning, on_violation="return_input")
    assert guarded(HISTORY) is HISTORY


def test_a_callback_sees_the_event_and_may_choose_the_answer() -> None:
    seen: list[GuardEvent] = []

    def fallback(event: GuardEvent) -> Messages:
        seen.append(event)
        return [event.before[0], event.before[-1]]

    guarded = compactcheck.guard(orphaning, on_violation=fallback)
    assert guarded(HISTORY) == [HISTORY[0], HISTORY[-1]]
    assert [v.invariant for v in seen[0].judgement.violations][:1] == ["tool_pairing"]
    assert seen[0].after == orphaning(HISTORY)
    # A callback that returns None keeps the compactor's answer.
    keep = compactcheck.guard(orphaning, on_violation=lambda event: None)
    assert keep(HISTORY) == orphaning(HISTORY)


def test_sampling_judges_the_chosen_share_of_calls_reproducibly() -> None:
    counts = []
    for _ in range(2):
        guarded = compactcheck.guard(orphaning, on_violation="log", sample=0.25, seed=3)
        for _ in range(400):
            guarded(HISTORY)
        counts.append(guarded.stats.checked)
    assert counts[0] == counts[1]
    assert 60 <= counts[0] <= 140
    never = compactcheck.guard(orphaning, sample=0.0)
    never(HISTORY)
    assert never.stats.checked == 0


def test_declared_facts_may_be_a_function_of_the_history() -> None:
    guarded = compactcheck.guard(
        reference_messages(max_messages=6),
        facts=lambda history: {"goal": history[1]["content"], "must_keep": ["NOT-THERE"]},
    )
    # Absent from the input, a must-keep item is not held against the compactor.
    guarded(HISTORY)
    assert guarded.stats.violated == 0


def test_bad_options_and_unreadable_histories_are_errors() -> None:
    with pytest.raises(compactcheck.CompactcheckError, match="on_violation='ignore'"):
        compactcheck.guard(orphaning, on_violation="ignore")  # type: ignore[call-overload]
    with pytest.raises(compactcheck.CompactcheckError, match="sample=2"):
        compactcheck.guard(orphaning, sample=2)
    with pytest.raises(compactcheck.CompactcheckError, match="unknown invariant"):
        compactcheck.guard(orphaning, invariants=["no_such_law"])
    with pytest.raises(compactcheck.CompactcheckError, match="cannot tell the format"):
        compactcheck.guard(lambda history: history)([1, 2])


def test_the_compactors_own_exception_is_not_hidden() -> None:
    def broken(history: Messages) -> Messages:
        raise RuntimeError("model unavailable")

    with pytest.raises(RuntimeError, match="model unavailable"):
        compactcheck.guard(broken, on_violation="log")(HISTORY)
