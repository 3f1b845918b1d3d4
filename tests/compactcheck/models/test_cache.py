"""The model cache and meter: keyed by the canonical request, atomic files, corrupt files
re-asked or refused, never a crash; the cap and offline mode refuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactcheck.models import (
    Meter,
    MeteredModel,
    ModelCache,
    ModelRefusedError,
    ModelRequest,
    Turn,
)


class Counting:
    """A model that counts its calls and answers with the call number."""

    name = "counting:test"

    def __init__(self) -> None:
        self.calls = 0

    def answer(self, request: ModelRequest) -> str:
        self.calls += 1
        return f"answer {self.calls} to {len(request.turns)} turn(s)"


def _request(text: str = "Fix ENG-1 in src/app.py", **extra: object) -> ModelRequest:
    return ModelRequest.model_validate({"turns": [{"role": "user", "text": text}], **extra})


def test_the_key_is_the_canonical_request() -> None:
    same = ModelRequest(system="s", turns=(Turn(role="user", text="t"),), max_tokens=5)
    built = ModelRequest.model_validate(
        {"max_tokens": 5, "turns": [{"text": "t", "role": "user"}], "system": "s"}
    )
    assert same.key() == built.key()
    assert same.canonical() == built.canonical()
    others = [
        same.model_copy(update={"system": "S"}),
        same.model_copy(update={"max_tokens": 6}),
        same.model_copy(update={"temperature": 0.0}),
        same.model_copy(update={"model": "openai:x"}),
        same.model_copy(update={"turns": (Turn(role="assistant", text="t"),)}),
    ]
    assert len({same.key(), *(other.key() for other in others)}) == len(others) + 1


def test_a_recorded_answer_is_replayed_not_asked_again(tmp_path: Path) -> None:
    model = Counting()
    metered = MeteredModel(model, cache=ModelCache(tmp_path))
    first = metered.answer(_request())
    again = MeteredModel(Counting(), cache=ModelCache(tmp_path))
    assert again.answer(_request()) == first
    assert (metered.meter.made, metered.meter.replayed) == (1, 0)
    assert (again.meter.made, again.meter.replayed) == (0, 1)
    # One file per request, named by its key, and no temporary file left behind.
    key = _request().for_model(model.name).key()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{key}.json"]
    record = json.loads((tmp_path / f"{key}.json").read_text())
    assert record["answer"] == first
    assert record["request"]["model"] == "counting:test"


@pytest.mark.parametrize(
    "garbage", ["{not json", '{"modelCacheVersion": 9}', '{"modelCacheVersion": 1, "answer": 3}']
)
def test_a_corrupt_file_is_asked_again_and_replaced(tmp_path: Path, garbage: str) -> None:
    model = Counting()
    metered = MeteredModel(model, cache=ModelCache(tmp_path))
    path = ModelCache(tmp_path).path(_request().for_model(model.name))
    path.write_text(garbage)
    assert metered.answer(_request()) == "answer 1 to 1 turn(s)"
    assert json.loads(path.read_text())["answer"] == "answer 1 to 1 turn(s)"


def test_offline_a_corrupt_file_is_refused_naming_it(tmp_path: Path) -> None:
    model = Counting()
    path = ModelCache(tmp_path).path(_request().for_model(model.name))
    path.write_text("{not json")
    metered = MeteredModel(model, cache=ModelCache(tmp_path), offline=True)
    with pytest.raises(ModelRefusedError, match="invalid JSON") as refused:
        metered.answer(_request())
    assert str(path) in str(refused.value)
    assert model.calls == 0


def test_a_file_holding_another_request_is_not_trusted(tmp_path: Path) -> None:
    model = Counting()
    cache = ModelCache(tmp_path)
    other = _request("another").for_model(model.name)
    cache.put(other, "not this one")
    cache.path(other).rename(cache.path(_request().for_model(model.name)))
    assert MeteredModel(model, cache=cache).answer(_request()) == "answer 1 to 1 turn(s)"


def test_offline_an_unrecorded_request_is_refused_not_sent(tmp_path: Path) -> None:
    model = Counting()
    metered = MeteredModel(model, cache=ModelCache(tmp_path), offline=True)
    with pytest.raises(ModelRefusedError, match="offline and not recorded"):
        metered.answer(_request())
    assert model.calls == 0
    assert metered.meter.refused == 1
    assert metered.refusal.startswith("offline")


def test_the_cap_refuses_new_calls_but_not_recorded_ones(tmp_path: Path) -> None:
    model = Counting()
    metered = MeteredModel(model, cache=ModelCache(tmp_path), meter=Meter(cap=2))
    metered.answer(_request("one"))
    metered.answer(_request("two"))
    with pytest.raises(ModelRefusedError, match="model call cap of 2 reached"):
        metered.answer(_request("three"))
    metered.answer(_request("one"))
    assert (metered.meter.made, metered.meter.replayed, metered.meter.refused) == (2, 1, 1)
    assert model.calls == 2
