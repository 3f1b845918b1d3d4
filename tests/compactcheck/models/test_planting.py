"""The planting fake: each answer is its request's lines with exactly one change of its kind,
and it records that change."""

from __future__ import annotations

import difflib

import pytest

from compactcheck.models import ModelRequest, ModelSlot, PlantingModel, Turn, check_name
from compactcheck.models.fakes import FAKE_TYPES
from compactcheck.models.planting import INVENTED, PLANT_KINDS, PlantKind

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
}


@pytest.mark.parametrize("kind", PLANT_KINDS)
def test_each_kind_plants_exactly_one_change_and_records_it(kind: PlantKind) -> None:
    model = PlantingModel(kind)
    answer = model.answer(REQUEST).splitlines()
    removed = [line[1:] for line in difflib.ndiff(LINES, answer) if line.startswith("- ")]
    added = [line[1:].lstrip() for line in difflib.ndiff(LINES, answer) if line.startswith("+ ")]
    before, after = EXPECTED[kind]
    assert removed == ([f" {before}"] if before else [])
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
