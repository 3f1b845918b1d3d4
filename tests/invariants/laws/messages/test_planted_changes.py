"""Each change the planting fake plants in a summary is reported, and nothing else is.

A summariser hands the planting fake everything between the system prompt and the last message;
the laws then judge its summary. The same summariser with a fake that plants nothing breaks no
law, so every violation is the planted change's; each must name the fact it changed.
"""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants import Facts, Finding, Violation, parse_messages
from compactcheck.invariants.laws.messages import LAWS
from compactcheck.models import PlantingModel
from compactcheck.models.planting import PLANT_KINDS, PlantKind
from tests.compactcheck.models.summarisers import model_summariser

GOAL = "Fix the login bug (AUTH-142)"
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful coding agent."},
    {
        "role": "user",
        "content": f"Goal: {GOAL}\n\nNew constraints:\n- [c1] Use Python 3.11\n"
        "- [c2] Do not touch the public API\n- [c3] Never push to main\n"
        "- [c4] Keep test coverage above 90%",
    },
    {"role": "assistant", "content": "Looking into it."},
    {
        "role": "user",
        "content": "Go on.\n\nNew constraints:\n"
        "- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)\n"
        "- [c6] Push only to the release branch",
    },
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": "Please continue."},
]
FACTS = Facts(
    goal=GOAL,
    constraints=(
        "Do not touch the public API",
        "Never push to main",
        "Keep test coverage above 90%",
        "Use Python 3.12",
        "Push only to the release branch",
    ),
    superseded_constraints=("Use Python 3.11",),
)
# The fact each kind changes in this history, as the violation names it.
CHANGED: dict[PlantKind, str] = {
    "polarity": "Do not touch the public API",
    "number": "Keep test coverage above 90%",
    "relax": "Do not touch the public API",
    "stale": "Use Python 3.11",
    "drop": "Push only to the release branch",
    "invent": "Use MySQL 8",
    "lapsed": "Do not touch the public API",
    "narrow": "Do not touch the public API",
    "hedge": "Do not touch the public API",
    "member": "Keep test coverage above 90%",
}
# The kinds whose loss is no mechanical evidence, so that the laws leave it for review rather
# than fail it (issue 46): a hedge ("avoid ... if possible") is never certain, and a rule with no
# value or name whose words partly survive elsewhere may have been reworded. "hedge" was pinned
# as a violation although the reading never rules a hedge for certain (it failed on the branch's
# base): its planted "Where possible, ..." is an item for review, as the issue defines.
REVIEWED: frozenset[PlantKind] = frozenset({"relax", "drop", "hedge"})
# The kinds today's laws do not report, and why: strict, so that the day a reading reports one,
# this test says so and its mark goes.
NOT_REPORTED: dict[PlantKind, str] = {
    "lapsed": "no law reports a rule in force stated as lapsed ('We used to ...')",
    "narrow": "no law reports a global rule narrowed to one file",
}
KINDS = [
    pytest.param(kind, marks=pytest.mark.xfail(reason=NOT_REPORTED[kind], strict=True))
    if kind in NOT_REPORTED
    else kind
    for kind in sorted(set(PLANT_KINDS) - REVIEWED)
]


def _findings(model: PlantingModel) -> list[Finding]:
    before = parse_messages(HISTORY)
    after = parse_messages(model_summariser(model)(HISTORY))
    assert len(after) < len(before)
    laws = [law for law in LAWS if not law.formats]
    return [law.check(before, after, FACTS) for law in laws]


def _violations(model: PlantingModel) -> list[Violation]:
    return [v for finding in _findings(model) for v in finding.violations]


def test_the_summariser_breaks_no_law_when_nothing_is_planted() -> None:
    model = PlantingModel("number", at_call=2)
    assert _violations(model) == []
    assert model.planted == []


@pytest.mark.parametrize("kind", KINDS)
def test_each_planted_change_is_reported_naming_the_fact_it_changed(kind: PlantKind) -> None:
    model = PlantingModel(kind)
    found = _violations(model)
    [plant] = model.planted
    assert plant.kind == kind
    assert found, f"{kind}: {plant.before!r} -> {plant.after!r} was not reported"
    assert all(CHANGED[kind] in violation.because for violation in found), [
        violation.because for violation in found
    ]


@pytest.mark.parametrize("kind", sorted(REVIEWED))
def test_a_planted_change_no_evidence_proves_is_left_for_review_naming_its_fact(
    kind: PlantKind,
) -> None:
    """Issue 46: these two kinds were pinned as violations; their loss is not mechanical, so
    they are items for review (never a violation, never a silent pass)."""
    model = PlantingModel(kind)
    findings = _findings(model)
    assert [v for f in findings for v in f.violations] == []
    review = [item for f in findings for item in f.review]
    assert [item.fact for item in review] == [CHANGED[kind]]
    assert review[0].leans_to_loss
    assert review[0].reason
