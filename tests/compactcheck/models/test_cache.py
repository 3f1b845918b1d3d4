"""The model cache and meter: keyed by the canonical request, atomic files, corrupt files
re-asked or refused, never a crash; the cap and offline mode refuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactcheck.models import (
    Ledger,
    MeteredModel,
    ModelCache,
    ModelRefusedError,
    ModelRequest,
    Reply,
    Turn,
)
from compactcheck.models.meter import estimated_tokens


class Counting:
    """A model that counts its calls and answers with the call number."""

    name = "counting:test"

    def __init__(self) -> None:
        self.calls = 0

    def answer(self, request: ModelRequest) -> str:
        self.calls += 1
        return f"answer {self.calls} to {len(request.turns)} turn(s)"


class Billing(Counting):
    """A counting model that reports its tokens, as the real clients do."""

    name = "billing:test"

    def reply(self, request: ModelRequest) -> Reply:
        return Reply(self.answer(request), tokens=40)


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
    metered = MeteredModel(model, cache=ModelCache(tmp_path), ledger=Ledger(max_calls=2))
    metered.answer(_request("one"))
    metered.answer(_request("two"))
    with pytest.raises(ModelRefusedError, match="model call cap of 2 reached"):
        metered.answer(_request("three"))
    metered.answer(_request("one"))
    assert (metered.meter.made, metered.meter.replayed, metered.meter.refused) == (2, 1, 1)
    assert model.calls == 2


def test_tokens_are_the_providers_count_and_recorded_answers_cost_none(tmp_path: Path) -> None:
    metered = MeteredModel(Billing(), cache=ModelCache(tmp_path))
    metered.answer(_request("one"))
    metered.answer(_request("two"))
    metered.answer(_request("one"))
    assert (metered.meter.made, metered.meter.tokens, metered.meter.estimated) == (2, 80, False)
    assert metered.ledger.spent().tokens == 80


def test_a_model_that_counts_nothing_has_its_tokens_estimated(tmp_path: Path) -> None:
    model = Counting()
    metered = MeteredModel(model, cache=ModelCache(tmp_path))
    answer = metered.answer(_request())
    request = _request().for_model(model.name)
    assert estimated_tokens(request, answer) == -(-(len(request.text()) + len(answer)) // 4)
    assert metered.meter.tokens == estimated_tokens(request, answer)
    assert metered.meter.estimated


def test_the_token_cap_refuses_once_reached_with_its_reason(tmp_path: Path) -> None:
    model = Billing()
    metered = MeteredModel(model, cache=ModelCache(tmp_path), ledger=Ledger(max_tokens=70))
    metered.answer(_request("one"))
    metered.answer(_request("two"))
    with pytest.raises(ModelRefusedError, match=r"model token cap of 70 reached \(80 tokens"):
        metered.answer(_request("three"))
    assert metered.answer(_request("two")) == "answer 2 to 1 turn(s)"
    assert model.calls == 2
    assert metered.meter.reason.startswith("model token cap of 70 reached")


def test_afresh_asks_again_and_keeps_the_recorded_answer(tmp_path: Path) -> None:
    model = Counting()
    cache = ModelCache(tmp_path)
    metered = MeteredModel(model, cache=cache)
    first = metered.answer(_request())
    with metered.afresh():
        assert metered.answer(_request()) == "answer 2 to 1 turn(s)"
        assert metered.answer(_request()) == "answer 3 to 1 turn(s)"
    assert metered.meter.reruns == "live"
    assert (metered.meter.made, metered.meter.replayed) == (3, 0)
    # The witness replays as it was found: a re-run's answer is not recorded over it.
    assert cache.get(_request().for_model(model.name)).answer == first
    assert metered.answer(_request()) == first


def test_afresh_past_the_cap_or_offline_replays_the_recorded_answer(tmp_path: Path) -> None:
    model = Counting()
    cache = ModelCache(tmp_path)
    first = MeteredModel(model, cache=cache).answer(_request())
    capped = MeteredModel(model, cache=cache, ledger=Ledger(max_calls=1))
    with capped.afresh():
        assert capped.answer(_request()) == "answer 2 to 1 turn(s)"
        assert capped.answer(_request()) == first
    assert (capped.meter.made, capped.meter.replayed, capped.meter.refused) == (1, 1, 0)
    assert capped.meter.reruns == "recorded"
    offline = MeteredModel(model, cache=cache, offline=True)
    with offline.afresh():
        assert offline.answer(_request()) == first
    assert offline.meter.reruns == "recorded"
    assert model.calls == 2
