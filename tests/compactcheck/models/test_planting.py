"""The planting fake: each answer is its request's lines with exactly one change of its kind,
and it records that change."""

from __future__ import annotations

import difflib

import pytest

from compactcheck.models import ModelRequest, ModelSlot, PlantingModel, Turn, check_name
from compactcheck.models.fakes import FAKE_TYPES
from compactcheck.models.phrasing import merged
from compactcheck.models.planting import INVENTED, NARROWED_TO, PLANT_KINDS, PlantKind, renumbered

SAID = (
    "Goal: Fix the login bug (AUTH-142)",
    "New constraints:",
    "- [c1] Use Python 3.11",
    "- [c2] Do not touch the public API",
    "- [c3] Never push to main",
    "- [c4] Keep test coverage above 90%",
    "Go on.",
    "New constraints:",
    "- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)",
    "- [c6] Push only to the release branch",
)
REQUEST = ModelRequest(
    turns=(
        Turn(role="user", text="\n".join(SAID[:7])),
        Turn(role="assistant", text="Looking into it."),
        Turn(role="user", text="\n".join(SAID[7:])),
    )
)
LINES = [*SAID[:7], "Looking into it.", *SAID[7:]]
# What each kind changes in this request, as (line before, line after).
EXPECTED: dict[PlantKind, tuple[str, str]] = {
    # c1 is superseded by c5: the first current constraint is c2.
    "polarity": ("- [c2] Do not touch the public API", "- [c2] Do touch the public API"),
    "number": ("- [c4] Keep test coverage above 90%", "- [c4] Keep test coverage above 91%"),
    "relax": (
        "- [c2] Do not touch the public API",
        "- [c2] Avoid touching the public API if possible",
    ),
    "stale": ("", "Constraint: Use Python 3.11"),
    "drop": ("- [c6] Push only to the release branch", ""),
    "invent": ("", INVENTED),
    "lapsed": ("- [c2] Do not touch the public API", "- [c2] We used to not touch the public API"),
    "narrow": (
        "- [c2] Do not touch the public API",
        f"- [c2] Do not touch the public API in {NARROWED_TO}",
    ),
    "hedge": (
        "- [c2] Do not touch the public API",
        "- [c2] Where possible, do not touch the public API",
    ),
    # The first run of bullets merged into one sentence; c1 is superseded, so the first current
    # member with a number is c4.
    "member": (
        "\n".join(SAID[2:6]),
        "- Rules in force ([c1], [c2], [c3], [c4]): use Python 3.11; do not touch the public API; "
        "never push to main; and keep test coverage above 91%.",
    ),
}


@pytest.mark.parametrize("kind", PLANT_KINDS)
def test_each_kind_plants_exactly_one_change_and_records_it(kind: PlantKind) -> None:
    model = PlantingModel(kind)
    answer = model.answer(REQUEST).splitlines()
    removed = [line[1:] for line in difflib.ndiff(LINES, answer) if line.startswith("- ")]
    added = [line[1:].lstrip() for line in difflib.ndiff(LINES, answer) if line.startswith("+ ")]
    before, after = EXPECTED[kind]
    assert removed == ([f" {line}" for line in before.split("\n")] if before else [])
    assert added == ([after] if after else [])
    [plant] = model.planted
    assert (plant.kind, plant.call, plant.before, plant.after) == (kind, 1, before, after)


def test_relax_drops_only_and_softens_never() -> None:
    model = PlantingModel("relax")
    only = ModelRequest(turns=(Turn(role="user", text="- [c6] Push only to the release branch"),))
    assert model.answer(only) == "- [c6] Push to the release branch"
    never = ModelRequest(turns=(Turn(role="user", text="Constraint: Never push to main"),))
    assert model.answer(never) == "Constraint: Avoid pushing to main if possible"


def test_at_call_plants_in_that_call_only_and_repeats_the_others() -> None:
    model = PlantingModel("number", at_call=3)
    answers = [model.answer(REQUEST) for _ in range(5)]
    faithful = "\n".join(LINES)
    assert [a == faithful for a in answers] == [True, True, False, True, True]
    assert [(p.call, p.after) for p in model.planted] == [(3, EXPECTED["number"][1])]


def test_nothing_of_the_kind_to_change_answers_unchanged_and_records_nothing() -> None:
    model = PlantingModel("stale")
    request = ModelRequest(turns=(Turn(role="user", text="- [c1] Use Python 3.11"),))
    assert model.answer(request) == "- [c1] Use Python 3.11"
    assert model.planted == []


def test_the_planting_fakes_are_named_and_chosen_by_name() -> None:
    for kind in PLANT_KINDS:
        assert check_name(f"plant-{kind}") == f"plant-{kind}"
        model = ModelSlot(f"plant-{kind}").model()
        assert isinstance(model, PlantingModel)
        assert isinstance(model, FAKE_TYPES)
        assert (model.name, model.kind) == (f"plant-{kind}", kind)
    assert "fake" in (PlantingModel.__doc__ or "").lower()
    with pytest.raises(ValueError, match="expected one of polarity, number"):
        PlantingModel("swap")  # type: ignore[arg-type]


def test_a_changed_member_is_the_faithful_merge_but_for_that_members_number() -> None:
    model = PlantingModel("member")
    model.answer(REQUEST)
    [plant] = model.planted
    ids = ["c1", "c2", "c3", "c4"]
    texts = [line.split("] ", 1)[1] for line in SAID[2:6]]
    faithful = "- " + merged(ids, texts)
    changed = "- " + merged(ids, [*texts[:3], renumbered(texts[3]) or ""])
    assert plant.after == changed != faithful
    # Only the number differs: 90 became 91, every other character is the faithful merge's.
    assert plant.after.replace("91%", "90%") == faithful


@pytest.mark.parametrize("kind", ["lapsed", "narrow", "hedge"])
def test_a_lapsed_narrowed_or_hedged_rule_keeps_every_word_of_the_rule(kind: PlantKind) -> None:
    model = PlantingModel(kind)
    model.answer(REQUEST)
    [plant] = model.planted
    rule = plant.before.removeprefix("- [c2] ")
    # The plant adds words around the rule ("We used to", "in FILE", "Where possible,"); the
    # rule's own words stay, lower-cased at most where a frame now opens the sentence.
    assert rule.lower().removeprefix("do ") in plant.after.lower()


@pytest.mark.parametrize("kind", ["lapsed", "narrow", "hedge", "member"])
def test_the_new_kinds_leave_a_goal_alone(kind: PlantKind) -> None:
    model = PlantingModel(kind)
    request = ModelRequest(turns=(Turn(role="user", text="Goal: Fix the login bug (AUTH-142)"),))
    assert model.answer(request) == "Goal: Fix the login bug (AUTH-142)"
    assert model.planted == []


def test_narrow_narrows_to_a_file_the_request_names() -> None:
    model = PlantingModel("narrow")
    text = "Edited src/auth/login.py.\n- [c1] Never push to main"
    answer = model.answer(ModelRequest(turns=(Turn(role="user", text=text),)))
    assert answer.splitlines()[1] == "- [c1] Never push to main in src/auth/login.py"


def test_lapsed_words_each_shape_of_rule_as_a_past_one() -> None:
    model = PlantingModel("lapsed")
    said = {
        "Never push to main": "We used to never push to main",
        "Keep test coverage above 90%": "We used to keep test coverage above 90%",
        "Every database change needs a migration": (
            "It used to be the rule that every database change needs a migration"
        ),
    }
    for rule, lapsed in said.items():
        request = ModelRequest(turns=(Turn(role="user", text=f"Constraint: {rule}"),))
        assert model.answer(request) == f"Constraint: {lapsed}"


@pytest.mark.parametrize(
    ("kind", "before", "after"),
    [
        (
            "polarity",
            "- [c6] Push only to the release branch",
            "- [c6] Push also to the release branch",
        ),
        (
            "lapsed",
            "- [c6] Push only to the release branch",
            "- [c6] We used to push only to the release branch",
        ),
        (
            "number",
            "- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)",
            "- [c5] Use Python 4.12 (replaces [c1] Use Python 3.11)",
        ),
    ],
)
def test_last_plants_in_the_last_constraint_the_change_applies_to(
    kind: PlantKind, before: str, after: str
) -> None:
    # The first constraints are often a system prompt's, which a summariser keeps beside its
    # summary; the last are most often only in the turns the summary replaces.
    model = PlantingModel(kind, last=True)
    model.answer(REQUEST)
    [plant] = model.planted
    assert (plant.before, plant.after) == (before, after)
