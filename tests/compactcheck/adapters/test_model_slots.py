"""Haystack's and ADK's summarisers take the run's model: prompts metered, recorded, replayed."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, run_target
from compactcheck.models import ModelRequest, ModelSlot
from compactcheck.report.model import TargetReport

pytest.importorskip("haystack")
pytest.importorskip("google.adk")


class Brief:
    """A local model that writes a short summary: the first words of the prompt's last turn."""

    name = "py:brief"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def answer(self, request: ModelRequest) -> str:
        self.requests.append(request)
        words = request.turns[-1].text.split() if request.turns else []
        return "Summary: " + " ".join(words[:30])


def _run(tmp_path: Path, target: str, model: Brief, offline: bool = False) -> TargetReport:
    slot = ModelSlot(model.name, cache_dir=tmp_path / "models", offline=offline, source=model)
    config = RunConfig(
        seed=3,
        seed_given=True,
        profile="ci",
        max_examples=8,
        min_exercised=0,
        shrink=False,
        corpus_dir=tmp_path / "corpus",
        model=slot,
    )
    [opened] = Engine(config).open([target], "messages")
    try:
        return run_target(opened, "messages", config)
    finally:
        opened.close()


@pytest.mark.parametrize("target", ["haystack:summarization", "google-adk:token-threshold"])
def test_the_summariser_asks_the_run_model_and_an_offline_run_replays(
    target: str, tmp_path: Path
) -> None:
    model = Brief()
    first = _run(tmp_path, target, model)
    assert first.model_calls is not None
    made = first.model_calls.made
    # Every summary the component asked for went to the run's model, through the meter.
    assert made == len(model.requests) > 0
    assert all(request.turns for request in model.requests)
    assert first.calls.get("compacted", 0) > 0
    assert not any("writes no summary" in error for error in first.errors)
    # Offline: online, a violation's re-runs would rightly ask the live model again.
    again_model = Brief()
    again = _run(tmp_path, target, again_model, offline=True)
    assert again_model.requests == []
    assert again.model_calls is not None
    assert (again.model_calls.made, again.model_calls.refused) == (0, 0)
    assert again.model_calls.replayed >= made
    assert [r.verdict for r in again.results] == [r.verdict for r in first.results]
