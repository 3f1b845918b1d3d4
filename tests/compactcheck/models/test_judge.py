"""A judge settles the rulings the reading left for review: models through fake transports, and
a real ``cmd:`` program; answers cached by input, capped, offline, never over a certain ruling."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest

from compactcheck.invariants.catalogue import select
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.messages import parse_messages
from compactcheck.invariants.verdict import Finding, Review, Violation
from compactcheck.models import AnthropicModel, ModelError, OpenAIModel
from compactcheck.models.judge import (
    JudgeAnswer,
    JudgeRequest,
    Settled,
    check_judge,
    judge_slot,
    settle,
    settled_finding,
)
from compactcheck.schemas import shipped

FRONTED = Review(
    "constraints_preserved",
    "Do not touch the public API",
    "constraint",
    "contradicted",
    "no one clause of it holds every word of it",
    "Leave the public API alone: do not modify it.",
    1,
)
HEDGED = Review(
    "constraints_not_weakened",
    "Never push to main",
    "constraint",
    "weakened",
    "'avoid' may soften it",
    "Avoid pushing to main if possible.",
    1,
)


class _Completions:
    """The ``chat.completions`` of a fake OpenAI client: answers from the request, counted."""

    def __init__(self) -> None:
        self.calls = 0

    def create(self, *, model: str, messages: list[dict[str, str]], **options: Any) -> Any:
        self.calls += 1
        asked = JudgeRequest.model_validate_json(messages[-1]["content"])
        verdict = "loss" if asked.leans == "weakened" else "faithful"
        text = f'Sure. {{"id": "{asked.id}", "verdict": "{verdict}", "reason": "fake says so"}}'
        usage = SimpleNamespace(prompt_tokens=30, completion_tokens=10)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=text))], usage=usage
        )


class _Messages:
    """The ``messages`` of a fake Anthropic client: every item is judged a loss."""

    def __init__(self) -> None:
        self.calls = 0

    def create(self, *, model: str, messages: list[dict[str, str]], **options: Any) -> Any:
        self.calls += 1
        asked = json.loads(messages[-1]["content"])
        text = json.dumps({"id": asked["id"], "verdict": "loss"})
        return SimpleNamespace(
            content=[SimpleNamespace(type="text", text=text)],
            usage=SimpleNamespace(input_tokens=20, output_tokens=5),
        )


def _openai(tmp_path: Path, **terms: Any) -> tuple[Any, _Completions]:
    completions = _Completions()
    fake = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    slot = judge_slot("openai:gpt-test", cache_dir=tmp_path / "judge", **terms)
    # The fake transport stands in for the official client, as a test may hand one in.
    slot = replace(slot, source=OpenAIModel(fake, "gpt-test"))
    return slot.open(), completions


def test_a_model_judge_settles_each_item_and_its_answers_are_replayed_by_input(
    tmp_path: Path,
) -> None:
    judge, completions = _openai(tmp_path)
    settled = settle([FRONTED, HEDGED], judge)
    assert [s.outcome for s in settled] == ["pass", "violation"]
    assert settled[0].shown() == "faithful, by openai:gpt-test: fake says so"
    assert completions.calls == 2
    again, completions = _openai(tmp_path)
    assert [s.outcome for s in settle([FRONTED, HEDGED], again)] == ["pass", "violation"]
    assert completions.calls == 0
    assert again.meter.replayed == 2


def test_the_call_cap_and_offline_leave_items_for_review_with_the_reason(tmp_path: Path) -> None:
    judge, _ = _openai(tmp_path, max_calls=1)
    first, second = settle([FRONTED, HEDGED], judge)
    assert first.outcome == "pass"
    assert (second.outcome, second.answer) == ("review", None)
    assert "call cap of 1 reached" in second.problem
    offline, completions = _openai(tmp_path / "empty", offline=True)
    (refused,) = settle([FRONTED], offline)
    assert completions.calls == 0
    assert "offline and not recorded" in refused.problem


def test_an_anthropic_judge_speaks_through_its_client(tmp_path: Path) -> None:
    messages = _Messages()
    fake = SimpleNamespace(messages=messages)
    slot = judge_slot("anthropic:claude-test", cache_dir=tmp_path)
    slot = replace(slot, source=AnthropicModel(fake, "claude-test"))
    (settled,) = settle([FRONTED], slot.open())
    assert settled.outcome == "violation"
    assert messages.calls == 1


_PROGRAM = """
import json, sys
for line in sys.stdin:
    asked = json.loads(line)
    assert asked["protocol"] == "compactcheck-judge/1"
    verdict = "loss" if "alone" in (asked["sentence"] or "") else "unsure"
    print(json.dumps({"id": asked["id"], "verdict": verdict, "reason": "my rules"}), flush=True)
"""


def test_a_cmd_judge_is_a_program_answering_a_json_line_per_line(tmp_path: Path) -> None:
    program = tmp_path / "judge.py"
    program.write_text(_PROGRAM, encoding="utf-8")
    slot = judge_slot(f"cmd:{sys.executable} {program}", cache_dir=tmp_path / "cache")
    judge = slot.open()
    first, second = settle([FRONTED, HEDGED], judge)
    assert (first.outcome, first.answer and first.answer.reason) == ("violation", "my rules")
    assert second.outcome == "review"
    assert judge.meter.made == 2
    # Recorded by input: asked again, the program is not.
    again = judge_slot(f"cmd:{sys.executable} {program}", cache_dir=tmp_path / "cache").open()
    assert [s.outcome for s in settle([FRONTED, HEDGED], again)] == ["violation", "review"]
    assert (again.meter.made, again.meter.replayed) == (0, 2)


def test_a_cmd_judge_that_fails_is_one_line_and_leaves_the_item_for_review(
    tmp_path: Path,
) -> None:
    missing = judge_slot("cmd:/no/such/judge", cache_dir=tmp_path).open()
    (settled,) = settle([FRONTED], missing)
    assert settled.outcome == "review"
    assert "cannot start it" in settled.problem
    silent = tmp_path / "silent.py"
    silent.write_text("import sys\nsys.stderr.write('no model here')\n", encoding="utf-8")
    dead = judge_slot(f"cmd:{sys.executable} {silent}", cache_dir=tmp_path).open()
    (settled,) = settle([FRONTED], dead)
    assert "exited before it answered" in settled.problem
    assert "no model here" in settled.problem
    garbled = tmp_path / "garbled.py"
    garbled.write_text("import sys\nfor _ in sys.stdin: print('yes', flush=True)\n")
    (settled,) = settle([FRONTED], judge_slot(f"cmd:{sys.executable} {garbled}").open())
    assert "holds no JSON object" in settled.problem


def test_a_judge_never_overrides_a_certain_ruling() -> None:
    (law,) = select("messages", ["constraints_preserved"])
    system = {"role": "system", "content": "You are a coding agent."}
    before = parse_messages(
        [system, {"role": "user", "content": "Fix it. Rules: Keep refunds under $500. Do not "
                  "touch the public API."}]
    )  # fmt: skip
    after = parse_messages(
        [system, {"role": "user", "content": "Summary: keep refunds under $5000. Leave the "
                  "public API alone: do not modify it."}]
    )  # fmt: skip
    facts = Facts(
        goal="Fix it.", constraints=("Keep refunds under $500", "Do not touch the public API")
    )
    finding = law.check(before, after, facts)
    assert len(finding.violations) == 1
    (item,) = finding.review
    # Whatever the judge says of the item, the certain violation stands.
    cleared = Settled(item, "cmd:lenient", JudgeAnswer(id="x", verdict="faithful"))
    settled = settled_finding(finding, [cleared])
    assert settled.violations == finding.violations
    assert settled.review == ()
    lost = settled_finding(
        finding, [Settled(item, "cmd:strict", JudgeAnswer(id="x", verdict="loss"))]
    )
    assert len(lost.violations) == 2
    assert "settled loss, by cmd:strict" in lost.violations[1].because


def test_a_finding_with_nothing_to_settle_is_unchanged() -> None:
    finding = Finding("constraints_preserved", True, (Violation("constraints_preserved", "x"),))
    assert settled_finding(finding, []) == finding


def test_judge_names_are_checked_and_the_protocol_has_its_schemas() -> None:
    assert check_judge("cmd:./judge --fast") == "cmd:./judge --fast"
    with pytest.raises(ModelError, match="expected openai:MODEL, anthropic:MODEL or cmd:PROGRAM"):
        check_judge("ollama:llama3")
    request = json.loads(JudgeRequest(id="a:0", question="q", fact="f", kind="goal",
                                      leans="dropped", reason="r").model_dump_json())  # fmt: skip
    jsonschema.validate(request, shipped("judge-request"))
    jsonschema.validate({"id": "a:0", "verdict": "loss"}, shipped("judge-answer"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": "a:0", "verdict": "maybe"}, shipped("judge-answer"))
