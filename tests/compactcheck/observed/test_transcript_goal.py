"""A chained run over a transcript judges the task's goal, inferred once, in every round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactcheck.invariants import ChatMessage, Facts, parse_messages
from compactcheck.observed.transcripts import TranscriptCase, TranscriptDriver, _transcript


@dataclass(frozen=True)
class _Answered:
    answered: bool
    after: tuple[ChatMessage, ...]


class _Summariser:
    """Stands in for the messages driver: records each round's facts, answers a summary."""

    def __init__(self) -> None:
        self.facts: list[Facts] = []

    def one(self, index: int, dumped: Any, facts: Facts, knobs: Any, before: Any) -> _Answered:
        del index, dumped, knobs
        self.facts.append(facts)
        summary = parse_messages([{"role": "assistant", "content": "Summary: AUTH-142, going."}])
        return _Answered(True, (before[0], *summary))


def test_a_later_round_keeps_the_goal_inferred_from_the_first() -> None:
    messages = parse_messages(
        [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "Fix the login bug (AUTH-142)."},
            {"role": "assistant", "content": "Looking."},
            {"role": "user", "content": "Go on. Never push to main."},
            {"role": "assistant", "content": "Done."},
        ]
    )
    case = TranscriptCase(_transcript("t", "test", messages), 0, 2, cuts=(1,))
    inner = _Summariser()
    outcomes = TranscriptDriver(inner, None).run(case)  # type: ignore[arg-type]
    assert len(outcomes) == 2
    first, second = inner.facts
    assert first.goal == second.goal == "Fix the login bug (AUTH-142)."
    # The second round's own rules are still read off its input.
    assert "Never push to main" in second.constraints
    assert [i.text for i in second.inferences if i.field == "goal"] == [first.goal]
