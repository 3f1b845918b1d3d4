"""The library face: `compactcheck.fuzz` and `compactcheck.check`, as a user imports them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import compactcheck

GOAL = "Migrate the billing service to Postgres 16"
BEFORE: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful coding agent."},
    {"role": "user", "content": GOAL},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "db.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "import psycopg2"},
    {"role": "assistant", "content": "db.py uses psycopg2; next I update the driver."},
    {"role": "user", "content": "Go on."},
]


def keep_last_two(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A naive trimmer: forgets the goal and may orphan a tool result."""
    return messages[-2:]


def test_public_names_are_few_and_each_resolves() -> None:
    assert "fuzz" in compactcheck.__all__
    assert "check" in compactcheck.__all__
    # A small face: fuzz, check, audit, guard, convert and the types they hand back.
    assert len(compactcheck.__all__) <= 20
    for name in compactcheck.__all__:
        assert getattr(compactcheck, name) is not None
    with pytest.raises(AttributeError):
        _ = compactcheck.nothing_here


def test_fuzz_a_callable_finds_what_it_breaks(tmp_path: Path) -> None:
    report = compactcheck.fuzz(keep_last_two, max_examples=30, corpus_dir=tmp_path)
    [target] = report.targets
    verdicts = {result.invariant: result.verdict for result in target.results}
    assert verdicts["goal_preserved"] == "violation"
    assert verdicts["call_answered"] == "pass"
    assert compactcheck.report_exit(report) == compactcheck.ExitCode.FAILED
    # The witness is in the corpus.
    assert list(tmp_path.glob("*.json"))


def test_fuzz_a_target_name_and_follow_its_events(tmp_path: Path) -> None:
    seen: list[str] = []
    report = compactcheck.fuzz(
        "reference-messages",
        max_examples=20,
        invariants=["tool_pairing"],
        corpus_dir=tmp_path,
        on_event=lambda event: seen.append(type(event).__name__),
    )
    assert seen[0] == "RunStarted"
    assert seen[-1] == "RunFinished"
    [target] = report.targets
    assert {r.invariant: r.verdict for r in target.results}["tool_pairing"] == "pass"


def test_fuzz_refuses_an_unknown_invariant_before_fuzzing(tmp_path: Path) -> None:
    with pytest.raises(compactcheck.CompactcheckError, match="tool_paring"):
        compactcheck.fuzz(keep_last_two, invariants=["tool_paring"], corpus_dir=tmp_path)


def test_check_judges_one_pair_from_plain_data() -> None:
    facts = {"goal": GOAL}
    kept = compactcheck.check(BEFORE, BEFORE, facts, invariants=["goal_preserved"])
    assert kept.holds
    trimmed = compactcheck.check(BEFORE, keep_last_two(BEFORE), facts)
    broken = {violation.invariant for violation in trimmed.violations}
    assert "goal_preserved" in broken
    with pytest.raises(compactcheck.ViolationError, match="goal_preserved"):
        trimmed.raise_for_violations()


def test_check_gives_one_line_errors_for_bad_data() -> None:
    with pytest.raises(compactcheck.CompactcheckError, match=r"^check: ") as raised:
        compactcheck.check([{"role": "wizard"}], BEFORE, {"goal": GOAL})
    assert "\n" not in str(raised.value)
    # Facts left out are inferred, not refused.
    assert compactcheck.check(BEFORE, BEFORE, {}).inferred == ("goal", "constraints", "must_keep")
    with pytest.raises(compactcheck.CompactcheckError, match=r"^check: cannot tell the format"):
        compactcheck.check([1], [2])
    with pytest.raises(compactcheck.CompactcheckError, match="messages"):
        compactcheck.check(BEFORE, BEFORE, {"goal": GOAL}, invariants=["not_a_law"])


def test_check_judges_a_provider_request_by_its_format_laws_and_its_reading() -> None:
    before: dict[str, Any] = {
        "system": "Follow every constraint.",
        "messages": [
            {"role": "user", "content": "Goal: fix the login bug"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "read it", "signature": "c2lnbmF0dXJl" * 3},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
            },
        ],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    # The compactor dropped the call but kept its result, and stripped the thinking.
    after = {**before, "messages": [before["messages"][0], before["messages"][2]]}
    judgement = compactcheck.check(
        before, after, {"goal": "Goal: fix the login bug"}, format="anthropic"
    )
    broken = {violation.invariant for violation in judgement.violations}
    assert "anthropic_tool_result_has_prior_use" in broken
    assert "tool_pairing" in broken
    assert compactcheck.check(before, before, {"goal": "x"}, format="anthropic").holds
