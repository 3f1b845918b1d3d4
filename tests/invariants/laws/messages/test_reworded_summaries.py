"""Summaries worded as a model words them, judged by the messages laws.

The wording fake keeps every fact (contractions, "Don't ever", other word forms, clauses moved);
a law that reports a violation on its summaries reads a rewording as a loss.
"""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.engine.drift import run_drift
from compactcheck.invariants import Facts, Violation, parse_messages
from compactcheck.invariants.laws.messages import LAWS
from compactcheck.models import EchoModel, ModelSlot, WordingModel
from compactcheck.report.drift import DriftRun
from compactcheck.strategies.vocabulary import CONSTRAINTS
from compactcheck.targets.registry import resolve
from tests.compactcheck.models.summarisers import reworded_reference, target_of

GOAL = "Fix the login bug (AUTH-142)"


def _history(constraint: str) -> list[dict[str, Any]]:
    # The constraint comes in a later turn: the reference keeps the first user message (the
    # goal) as it was, and summarises the turns after it.
    turns = (f"Please continue.\n\nNew constraints:\n- [c1] {constraint}", "Go on.", "Start.")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": f"Goal: {GOAL}"},
    ]
    for text in turns:
        messages += [
            {"role": "assistant", "content": "Looking into it."},
            {"role": "user", "content": text},
        ]
    messages.append({"role": "assistant", "content": "Done."})
    return messages


def _violations(compactor: Any, constraint: str) -> list[Violation]:
    messages = _history(constraint)
    before = parse_messages(messages)
    after = parse_messages(compactor(messages))
    assert len(after) < len(before)
    facts = Facts(goal=GOAL, constraints=(constraint,))
    laws = [law for law in LAWS if not law.formats]
    return [v for law in laws for v in law.check(before, after, facts).violations]


def test_the_reference_summary_itself_keeps_every_constraint() -> None:
    # The control: repeated as it was (the echo only tags it with its role), no law fails.
    for constraint in CONSTRAINTS:
        assert _violations(reworded_reference(EchoModel()), constraint) == []


@pytest.mark.parametrize("constraint", CONSTRAINTS)
def test_a_reference_summary_reworded_by_the_wording_fake_breaks_no_law(constraint: str) -> None:
    assert _violations(reworded_reference(WordingModel()), constraint) == []


def _wrong(run: DriftRun) -> set[tuple[int, str, str]]:
    return {(r.round, f.kind, f.fact) for r in run.rounds for f in r.facts if f.state != "kept"}


def test_a_drift_run_of_the_reference_reworded_by_the_wording_fake_keeps_every_fact() -> None:
    run = run_drift(target_of("reworded-reference", reworded_reference(WordingModel())), 0)
    assert _wrong(run) == set()


# The summarising adapters whose summary the run's model writes; on the drift run of seed 0 the
# wording fake's summaries meet today's reading of contractions and word forms with each.
ADAPTERS = {
    "langchain:summarization-middleware": "langchain",
    "langmem:summarize_messages": "langmem",
    "pydantic-ai:summarizing": "pydantic_ai",
    "google-adk:token-threshold": "google.adk",
}


def _drift(name: str, model: str) -> DriftRun:
    pytest.importorskip(ADAPTERS[name])
    target = resolve(name, view="messages", model=ModelSlot(model))
    try:
        return run_drift(target, 0)
    finally:
        target.close()


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_summarising_adapter_loses_no_more_with_the_wording_fake_than_with_the_echo(
    name: str,
) -> None:
    # The echo repeats what it is shown: what the adapter loses with it, its own selection lost.
    echoed, worded = _drift(name, "echo"), _drift(name, "wording")
    assert [r.status for r in worded.rounds].count("compacted") >= 5
    assert _wrong(worded) <= _wrong(echoed)
