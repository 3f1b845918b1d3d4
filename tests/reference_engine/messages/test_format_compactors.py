"""The provider formats' reference compactors keep every law; each format law has a mutant that
breaks it, caught within 100 histories with a small witness."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.target_run import TargetRun
from compactcheck.invariants.catalogue import ALL_FORMATS, catalogue
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.formats import Format, check_format
from compactcheck.invariants.formats.responses import ResponsesInput
from compactcheck.invariants.laws.messages import FORMAT_LAWS
from compactcheck.invariants.laws.messages.responses import item_keeps_its_reasoning
from compactcheck.reference_engine.messages.native import NativeReference
from compactcheck.reference_engine.mutants.formats import FORMAT_MUTANTS
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.targets.registry import resolve

NATIVE: list[Format] = ["anthropic", "openai-responses", "gemini"]
PREFIX = {"anthropic": "anthropic_", "openai-responses": "responses_", "gemini": "gemini_"}


def test_every_format_law_has_a_mutant() -> None:
    assert {mutant.targets for mutant in FORMAT_MUTANTS} == {law.id for law in FORMAT_LAWS}
    for mutant in FORMAT_MUTANTS:
        [law] = [law for law in catalogue("messages", ALL_FORMATS) if law.id == mutant.targets]
        assert law.formats == (mutant.format,)


def test_every_format_law_names_the_provider_rule_it_mirrors() -> None:
    for law in FORMAT_LAWS:
        assert law.mirrors, law.id
        assert law.id.startswith(PREFIX[law.formats[0]])


@pytest.mark.parametrize("format", NATIVE)
def test_the_reference_keeps_every_law_of_its_format(tmp_path: Path, format: Format) -> None:
    target = resolve("reference-messages", format=format)
    config = RunConfig(
        seed=0,
        max_examples=80,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        shrink=False,
        min_exercised=0,
        format=format,
    )
    try:
        run = TargetRun(target, "messages", config)
        for _ in run.steps():
            pass
    finally:
        target.close()
    assert run.finished is not None
    report = run.finished.report
    assert report.format == format
    verdicts = {result.invariant: result for result in report.results}
    for law_id, result in verdicts.items():
        assert result.verdict in ("pass", "skipped"), (law_id, result.because)
    # Every structural law of the format could have failed on some of these histories.
    for law in FORMAT_LAWS:
        if law.formats == (format,):
            assert verdicts[law.id].exercised > 0, law.id


def _said(role: str, text: str, item_id: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "message", "role": role, "content": text}
    if item_id:
        item["id"] = item_id
    return item


def test_the_responses_reference_keeps_a_reasoned_run_of_model_items_whole() -> None:
    # A reasoning item, then three assistant messages with nothing between: whoever reads the
    # history cannot tell which of them the reasoning produced, so the law takes the run whole
    # and the reference may cut before it or after it, never inside. Every cap of kept messages
    # moves the cut, so some cap falls inside the run if the reference allows it.
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "encrypted_content": "opaque",
    }
    run = [_said("assistant", f"Step {n} is done.", f"msg_{n}") for n in range(3)]
    items = [_said("user", "Goal: fix the login bug"), _said("assistant", "On it.", "msg_a")]
    items += [reasoning, *run, _said("user", "Go on."), _said("assistant", "Done.", "msg_z")]
    before = ResponsesInput.model_validate({"input": items})
    compacted = 0
    for cap in range(2, len(items)):
        answer = NativeReference("openai-responses", max_messages=cap)({"input": items})
        after = ResponsesInput.model_validate(answer)
        compacted += after != before
        finding = item_keeps_its_reasoning.check(before, after, Facts(goal="fix the login bug"))
        assert finding.exercised, cap
        assert finding.holds, (cap, finding.violations)
    assert compacted >= 3


@pytest.mark.parametrize("mutant", FORMAT_MUTANTS, ids=[m.name for m in FORMAT_MUTANTS])
def test_each_format_mutant_is_caught_by_its_law_with_a_small_witness(
    tmp_path: Path, mutant: Mutant
) -> None:
    format = check_format(mutant.format or "")
    target = resolve(f"mutant:{mutant.name}")
    assert target.format == format
    config = RunConfig(
        seed=0,
        max_examples=100,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        include=(mutant.targets,),
        stop_when_all_broken=True,
        min_exercised=0,
        format=format,
    )
    try:
        run = TargetRun(target, "messages", config)
        run.search.explore()
        detection = run.search.detections.get(mutant.targets)
        assert detection is not None, f"{mutant.name} not caught within 100 histories"
        run.search.shrink(run.judge.laws[0])
    finally:
        target.close()
    failure = run.judge.failures[mutant.targets]
    assert failure.size <= mutant.max_witness, f"shrunk to {failure.size} items"
    assert 1 <= len(failure.finding.violations[0].witness) <= 4
