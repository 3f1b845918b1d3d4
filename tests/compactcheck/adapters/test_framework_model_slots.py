"""Agent Framework's and inspect-ai's summarisers take the run's model, metered and replayed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, run_target
from compactcheck.models import ModelRequest, ModelSlot
from compactcheck.report.model import TargetReport

# target -> the module whose absence means its extra is missing
TARGETS = {
    "agent-framework:summarization": "agent_framework",
    "inspect-ai:compaction-summary": "inspect_ai",
}


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


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_summariser_asks_the_run_model_and_an_offline_run_replays(
    target: str, tmp_path: Path
) -> None:
    if importlib.util.find_spec(TARGETS[target]) is None:
        pytest.skip(f"needs the {TARGETS[target]!r} package")
    model = Brief()
    first = _run(tmp_path, target, model)
    assert first.model_calls is not None
    made = first.model_calls.made
    assert made == len(model.requests) > 0
    assert all(request.turns for request in model.requests)
    assert first.calls.get("compacted", 0) > 0
    again_model = Brief()
    again = _run(tmp_path, target, again_model, offline=True)
    assert again_model.requests == []
    assert again.model_calls is not None
    assert again.model_calls.replayed >= made
    assert [r.verdict for r in again.results] == [r.verdict for r in first.results]
