"""A judge for the rulings the reading could not settle: a model, or a program of the user's.

A law leaves a ruling it is unsure of for review (``compactcheck.invariants.verdict.Review``);
a judge reads each such item and answers whether the output kept the fact. It is named as the
model slot names a model, ``openai:MODEL`` or ``anthropic:MODEL`` (the official clients), or
``cmd:PROGRAM``, any program that answers a ``JudgeRequest`` per line on its standard input
with a ``JudgeAnswer`` per line on its standard output (JSON Lines; the JSON Schemas ship as
``judge-request.json`` and ``judge-answer.json``), so that a local entailment model or a team's
own rules can judge. Every judge sits behind the slot's cache (answers recorded by input and
replayed), call cap and offline mode (``compactcheck.models.slot``).

A judge only ever sees items for review: a certain ruling is never put to it, so it can never
override one. ``settle`` asks it about each item; ``settled_finding`` turns a law's finding
into the one the judge's answers give, each settled item saying who settled it and why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from compactcheck.base.errors import one_line
from compactcheck.invariants.verdict import Finding, Review, Violation
from compactcheck.models.clients import PROVIDERS
from compactcheck.models.judge_command import CommandJudge
from compactcheck.models.meter import MeteredModel
from compactcheck.models.model import ModelError, ModelRefusedError
from compactcheck.models.request import ModelRequest, Turn
from compactcheck.models.slot import ModelSlot

JUDGE_PROTOCOL: Literal["compactcheck-judge/1"] = "compactcheck-judge/1"
JUDGE_NAMES = "openai:MODEL, anthropic:MODEL or cmd:PROGRAM"
Verdict = Literal["faithful", "loss", "unsure"]


class JudgeRequest(BaseModel):
    """One item for review, as a judge is asked about it (one JSON line)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    protocol: Literal["compactcheck-judge/1"] = Field(
        default=JUDGE_PROTOCOL, description="the judge protocol and its version"
    )
    id: str = Field(description="the item's id, echoed in the answer")
    question: str = Field(description="what the judge is asked, in words")
    fact: str = Field(description="the fact the input held (a goal or a rule)")
    kind: Literal["goal", "constraint", "superseded", "invented"] = Field(
        description="goal or constraint: must still be said; superseded: must no longer be "
        "asserted; invented: a rule the output states that the input never gave"
    )
    sentence: str | None = Field(
        default=None, description="the output sentence the reading rests on, if any"
    )
    leans: str = Field(description="the ruling the reading leans to (reworded, dropped, ...)")
    reason: str = Field(description="why the reading is unsure")


class JudgeAnswer(BaseModel):
    """A judge's answer to one request (one JSON line)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field(description="the id of the request answered")
    verdict: Verdict = Field(
        description="faithful: the output keeps the fact as it should (a superseded one no "
        "longer asserted, an invented one not new); loss: it does not; unsure: cannot tell"
    )
    reason: str = Field(default="", description="one sentence on why")


_QUESTIONS = {
    "goal": "Does the output still state this goal, with the same meaning?",
    "constraint": "Does the output still state this rule, with the same force and meaning?",
    "superseded": "This rule was replaced. Does the output still assert it as current?",
    "invented": "Does the output state this rule although the input never gave it?",
}
SYSTEM = (
    "You review what a context compactor did to one fact of an agent's history. You are given "
    "the fact, the sentence of the compacted output the question rests on, and why an automatic "
    "reading could not decide. Answer with one JSON object and nothing else: "
    '{"id": <the id>, "verdict": "faithful" | "loss" | "unsure", "reason": <one sentence>}. '
    '"faithful" means the output keeps the fact as it should; "loss" means it drops, changes, '
    "weakens, contradicts, restates as current a replaced rule, or invents one."
)


def request_of(item: Review, number: int) -> JudgeRequest:
    """The request a judge is asked about one item for review."""
    kind = item.kind if item.kind in _QUESTIONS else "constraint"
    return JudgeRequest(
        id=f"{item.invariant}:{number}",
        question=_QUESTIONS[kind],
        fact=item.fact,
        kind=kind,
        sentence=item.sentence,
        leans=item.leans,
        reason=item.reason,
    )


@dataclass(frozen=True)
class Settled:
    """One item for review and what the judge made of it.

    ``answer`` is None when the judge gave none (``problem`` says why: the call cap, offline and
    not recorded, an answer that is no ``JudgeAnswer``); ``judge`` names who answered.
    """

    item: Review
    judge: str
    answer: JudgeAnswer | None = None
    problem: str = ""

    @property
    def outcome(self) -> Literal["violation", "pass", "review"]:
        """What the item comes to: a loss is a violation, faithful a pass, else still review."""
        if self.answer is None or self.answer.verdict == "unsure":
            return "review"
        return "violation" if self.answer.verdict == "loss" else "pass"

    def shown(self) -> str:
        """One line for a report: who settled it, and why."""
        if self.answer is None:
            return f"not settled by {self.judge}: {self.problem}"
        why = f": {self.answer.reason}" if self.answer.reason else ""
        return f"{self.answer.verdict}, by {self.judge}{why}"


def settle(items: Sequence[Review], judge: MeteredModel) -> tuple[Settled, ...]:
    """Ask ``judge`` about each item for review; the items with its answers, in order.

    Answers are recorded and replayed by input (the slot's cache), and a call the slot refuses
    (cap, offline) leaves its item for review with the reason.
    """
    found: list[Settled] = []
    for number, item in enumerate(items):
        asked = request_of(item, number)
        line = asked.model_dump_json()
        request = ModelRequest(
            system=SYSTEM, turns=(Turn(role="user", text=line),), temperature=0, max_tokens=300
        )
        try:
            text = judge.answer(request)
        except (ModelError, ModelRefusedError) as error:
            found.append(Settled(item, judge.spec, problem=one_line(error)))
            continue
        answer, problem = _answer(text, asked.id)
        found.append(Settled(item, judge.spec, answer, problem))
    return tuple(found)


_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _answer(text: str, wanted: str) -> tuple[JudgeAnswer | None, str]:
    """The answer a judge's text holds (a model may wrap its JSON in prose), or why none."""
    found = _OBJECT.search(text)
    if found is None:
        return None, f"its answer holds no JSON object: {text[:80]!r}"
    try:
        data = json.loads(found.group())
    except ValueError:
        return None, f"its answer is not JSON: {text[:80]!r}"
    if isinstance(data, dict):
        data.setdefault("id", wanted)
    try:
        answer = JudgeAnswer.model_validate(data)
    except ValidationError as error:
        return None, f"its answer is no judge answer: {one_line(error)}"
    if answer.id != wanted:
        return None, f"it answered {answer.id!r}, not {wanted!r}"
    return answer, ""


def settled_finding(finding: Finding, settled: Sequence[Settled]) -> Finding:
    """The finding the judge's answers give: an item judged a loss is a violation, one judged
    faithful passes, the others stay for review. Its certain violations are never touched."""
    verdicts = {s.item: s for s in settled}
    violations = list(finding.violations)
    review: list[Review] = []
    for item in finding.review:
        judged = verdicts.get(item)
        if judged is None or judged.outcome == "review":
            reason = f"{item.reason}; {judged.shown()}" if judged is not None else item.reason
            review.append(replace(item, reason=reason))
        elif judged.outcome == "violation":
            said = f": {item.sentence!r}" if item.sentence else ""
            where = f" (output index {item.message})" if item.message is not None else ""
            violations.append(
                Violation(
                    finding.invariant,
                    f"{item.kind} {item.fact!r} is a loss in the output{said}{where}, as the "
                    f"reading leaned ({item.leans}: {item.reason}), settled {judged.shown()}",
                )
            )
    return replace(finding, violations=tuple(violations), review=tuple(review))


def settle_findings(findings: Sequence[Finding], judge: MeteredModel) -> tuple[Finding, ...]:
    """Each finding as its judge's answers leave it (``settled_finding``); those without items
    for review as they are."""
    return tuple(
        settled_finding(found, settle(found.review, judge)) if found.review else found
        for found in findings
    )


def check_judge(name: str) -> str:
    """A judge name, checked for its shape (ModelError naming the known ones)."""
    provider, _, rest = name.partition(":")
    if (provider in PROVIDERS or provider == "cmd") and rest.strip():
        return name
    raise ModelError(f"--judge {name!r}: unknown judge; expected {JUDGE_NAMES}")


def judge_slot(
    name: str,
    *,
    cache_dir: Path | None = None,
    max_calls: int | None = None,
    offline: bool = False,
) -> ModelSlot:
    """The model slot of a judge name: its cache, call cap and offline mode as a model's."""
    check_judge(name)
    provider, _, rest = name.partition(":")
    source = CommandJudge(rest.strip()) if provider == "cmd" else None
    return ModelSlot(name, cache_dir=cache_dir, max_calls=max_calls, offline=offline, source=source)


def judge_of(values: Mapping[str, Any]) -> ModelSlot | None:
    """The judge slot that checked option values name; None without a judge."""
    name = values.get("judge")
    if not name:
        return None
    return judge_slot(
        name,
        cache_dir=values.get("model_cache"),
        max_calls=values.get("max_judge_calls"),
        offline=bool(values.get("offline")),
    )


__all__ = [
    "JUDGE_NAMES",
    "JUDGE_PROTOCOL",
    "JudgeAnswer",
    "JudgeRequest",
    "Settled",
    "check_judge",
    "judge_of",
    "judge_slot",
    "request_of",
    "settle",
    "settle_findings",
    "settled_finding",
]
