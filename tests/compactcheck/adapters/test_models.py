"""A summariser driven through the real OpenAI and Anthropic SDK clients on a fake transport.

The clients are the official ones; only their HTTP transport is an ``httpx.MockTransport`` that
answers in each provider's response shape and counts the requests it gets. Nothing reaches a
network. A run records every answer; the same run again, and ``compactcheck replay`` of its
corpus entry offline, send nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from compactcheck.cli import main
from compactcheck.corpus.replay import ModelTerms, replay
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import Engine, run_target
from compactcheck.models import Model, ModelSlot
from compactcheck.models.clients import AnthropicModel, OpenAIModel
from compactcheck.render import FORMATS
from compactcheck.report.model import Report, TargetReport
from compactcheck.targets.registry import resolve

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
# Each SDK is handed a client of the HTTP package it is built on: openai uses httpx, the
# anthropic release pinned in the models extra its successor httpx2 (the same API).
HTTP = {"openai": pytest.importorskip("httpx"), "anthropic": pytest.importorskip("httpx2")}
pytest.importorskip("langchain.agents.middleware.summarization")

TARGET = "langchain:summarization-middleware"


def summary_of(prompt: str) -> str:
    """What the fake provider answers: a short summary that keeps none of the facts."""
    return f"The agent worked through a conversation of {len(prompt)} characters."


@dataclass
class Provider:
    """A fake provider endpoint: the requests it got, answered in its real JSON shape."""

    kind: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def handle(self, request: Any) -> Any:
        httpx = HTTP[self.kind]
        body = json.loads(request.content)
        self.requests.append({"path": request.url.path, "body": body})
        if self.kind == "openai":
            assert request.url.path == "/v1/chat/completions"
            prompt = "\n".join(m["content"] for m in body["messages"])
            return httpx.Response(
                200,
                json={
                    "id": f"chatcmpl-{len(self.requests)}",
                    "object": "chat.completion",
                    "created": 1700000000,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": summary_of(prompt)},
                            "finish_reason": "stop",
                            "logprobs": None,
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )
        assert request.url.path == "/v1/messages"
        prompt = "\n".join(m["content"] for m in body["messages"])
        return httpx.Response(
            200,
            json={
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": summary_of(prompt)}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )

    def model(self) -> Model:
        """The provider's official client on this transport, behind the Model protocol."""
        httpx = HTTP[self.kind]
        http = httpx.Client(transport=httpx.MockTransport(self.handle))
        if self.kind == "openai":
            client = openai.OpenAI(api_key="sk-test", http_client=http, max_retries=0)
            return OpenAIModel(client, "gpt-test")
        client = anthropic.Anthropic(api_key="sk-ant-test", http_client=http, max_retries=0)
        return AnthropicModel(client, "claude-test")


def _run(
    tmp_path: Path,
    provider: Provider,
    max_calls: int | None = None,
    *,
    max_tokens: int | None = None,
    offline: bool = False,
) -> TargetReport:
    model = provider.model()
    slot = ModelSlot(
        model.name,
        cache_dir=tmp_path / "models",
        max_calls=max_calls,
        max_tokens=max_tokens,
        offline=offline,
        source=model,
    )
    config = RunConfig(
        seed=11,
        seed_given=True,
        profile="ci",
        max_examples=6,
        min_exercised=0,
        corpus_dir=tmp_path / "corpus",
        model=slot,
    )
    [target] = Engine(config).open([TARGET], "messages")
    try:
        return run_target(target, "messages", config)
    finally:
        target.close()


def _verdicts(report: TargetReport) -> dict[str, str]:
    return {result.invariant: result.verdict for result in report.results}


def _witnesses(report: TargetReport) -> dict[str, Any]:
    return {
        r.invariant: (r.counterexample.witness, r.counterexample.output)
        for r in report.results
        if r.counterexample is not None
    }


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_run_through_the_sdk_is_recorded_then_replayed_with_no_new_call(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = Provider(kind)
    first = _run(tmp_path, recording)
    assert first.model_calls is not None
    made = first.model_calls.made
    # Every call went through the SDK's own request building to the transport, and each
    # counts the tokens its answer's usage reported (10 in, 5 out).
    assert made == len(recording.requests) > 0
    assert (first.model_calls.tokens, first.model_calls.tokens_estimated) == (15 * made, False)
    # The witnesses' re-runs asked the model again (its answers here are a function of the
    # prompt, so they stay deterministic), and were not recorded over the witness's answers.
    assert first.model_calls.reruns == "live"
    assert {r.counterexample.reproduced for r in first.results if r.counterexample} == {
        "deterministic"
    }
    body = recording.requests[0]["body"]
    assert body["model"] == ("gpt-test" if kind == "openai" else "claude-test")
    if kind == "anthropic":
        assert body["max_tokens"] > 0
        assert body["messages"][0]["role"] == "user"
    assert "goal_preserved" in _witnesses(first)
    recorded = len(list((tmp_path / "models").glob("*.json")))
    # Re-runs are calls made but not recorded: three for each law's witness, and up to three
    # more for each other way it broke in (a way whose witness asks what another's already
    # asked adds none).
    laws = 3 * len(_witnesses(first))
    ways = 3 * sum(len(r.other_ways) for r in first.results if r.counterexample)
    assert made - laws - ways <= recorded <= made - laws

    replaying = Provider(kind)
    again = _run(tmp_path, replaying, offline=True)
    assert replaying.requests == []
    assert again.model_calls is not None
    assert (again.model_calls.made, again.model_calls.refused) == (0, 0)
    # Every call of the re-run was answered from the recording. It may make fewer calls than
    # the first run recorded: it replays the first run's witnesses from the corpus before it
    # explores, and so walks another path to the same witnesses (without the corpus, the same
    # seed replays every recorded call and more).
    assert again.model_calls.replayed > 0
    assert again.model_calls.reruns == "recorded"
    assert "flakiness judged on recorded answers" in again.model_calls.counts()
    assert _verdicts(again) == _verdicts(first)
    assert _witnesses(again) == _witnesses(first)

    # The witness's corpus entry names the model, and replays offline from the cache.
    entry = next((tmp_path / "corpus").glob("*goal_preserved*.json"))
    named = "openai:gpt-test" if kind == "openai" else "anthropic:claude-test"
    assert json.loads(entry.read_text())["model"] == named
    [result] = replay(entry, models=ModelTerms(offline=True))
    assert result.verdict == "still failing", result.detail
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "corpus"), "--offline"]) == 1
    out = capsys.readouterr().out
    # Every entry still fails offline: one per law and way the first run broke.
    entries = len(list((tmp_path / "corpus").glob("*.json")))
    assert entries == len(_witnesses(first)) + ways // 3
    assert out.lower().count("still failing") == entries, out
    assert "errored" not in out.lower()
    assert replaying.requests == []


def test_a_call_cap_makes_the_run_inconclusive_with_one_clear_line(tmp_path: Path) -> None:
    provider = Provider("openai")
    # A cap of one call: the first summary uses it up, so every later summary exploring asks
    # for is refused, however few of the drawn histories need one.
    report = _run(tmp_path, provider, max_calls=1)
    assert len(provider.requests) == 1
    assert report.model_calls is not None
    assert report.model_calls.refused > 0
    # Exploring's refused rounds are skipped calls; shrinking and re-runs are refused too.
    assert 0 < report.calls.get("skipped", 0) <= report.model_calls.refused
    assert "pass" not in _verdicts(report).values()
    [line] = [e for e in report.errors if "model call cap of 1 reached" in e]
    assert "inconclusive" in line
    assert "\n" not in line
    whole = Report(
        toolkit_version="test",
        seed=11,
        profile="ci",
        max_examples=6,
        rounds=3,
        complete=True,
        started_at="2026-01-01T00:00:00+00:00",
        targets=[report],
    )
    assert "model call cap of 1 reached" in FORMATS["markdown"](whole)
    assert "model openai:gpt-test: 1 made" in FORMATS["markdown"](whole)


def test_a_token_cap_counts_the_reported_usage_and_makes_the_run_inconclusive(
    tmp_path: Path,
) -> None:
    provider = Provider("anthropic")
    report = _run(tmp_path, provider, max_tokens=40)
    calls = report.model_calls
    assert calls is not None
    # 15 tokens a call: the third call carries the count past 40, and none starts after it.
    assert len(provider.requests) == calls.made == 3
    assert (calls.tokens, calls.token_cap, calls.tokens_estimated) == (45, 40, False)
    assert calls.refused > 0
    assert "pass" not in _verdicts(report).values()
    [line] = [e for e in report.errors if "model token cap of 40 reached" in e]
    assert "inconclusive" in line
    assert "raise --max-model-tokens" in line
    assert "\n" not in line
    assert "45 tokens, token cap 40" in calls.counts()


def test_offline_with_nothing_recorded_sends_nothing_and_judges_nothing(tmp_path: Path) -> None:
    provider = Provider("openai")
    model = provider.model()
    slot = ModelSlot(model.name, cache_dir=tmp_path / "models", offline=True, source=model)
    config = RunConfig(seed=3, profile="ci", max_examples=3, corpus_dir=tmp_path / "c", model=slot)
    [target] = Engine(config).open([TARGET], "messages")
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    assert provider.requests == []
    assert report.model_calls is not None
    assert report.model_calls.made == 0
    assert "pass" not in _verdicts(report).values()
    assert any("offline and not recorded" in error for error in report.errors)


@pytest.mark.parametrize(
    "name",
    ["langchain:summarization-middleware", "langmem:summarize_messages", "pydantic-ai:summarizing"],
)
def test_every_summariser_writes_with_the_model_it_is_handed(name: str, tmp_path: Path) -> None:
    from compactcheck import api
    from compactcheck.adapters import EXTRAS

    pytest.importorskip(EXTRAS[name].replace("-", "_"))
    provider = Provider("openai")
    report = api.fuzz(
        name,
        view="messages",
        max_examples=4,
        seed=5,
        shrink=False,
        corpus_dir=tmp_path / "corpus",
        model=provider.model(),
    )
    [target] = report.targets
    assert target.model_calls is not None
    assert target.model_calls.model == "openai:gpt-test"
    assert target.model_calls.made == len(provider.requests) > 0
    assert (tmp_path / "models").is_dir()


def test_a_local_fake_is_metered_but_never_recorded(tmp_path: Path) -> None:
    from compactcheck import api

    report = api.fuzz(
        TARGET,
        view="messages",
        max_examples=3,
        seed=5,
        shrink=False,
        corpus_dir=tmp_path / "corpus",
        model="paraphrase",
    )
    [target] = report.targets
    assert target.model_calls is not None
    assert target.model_calls.made > 0
    assert target.model_calls.replayed == 0
    assert not (tmp_path / "models").exists()


def test_a_model_given_to_a_target_that_takes_none_is_said(tmp_path: Path) -> None:
    target = resolve("reference-messages")
    config = RunConfig(
        seed=0,
        max_examples=5,
        profile="ci",
        corpus_dir=tmp_path,
        seed_given=True,
        shrink=False,
        model=ModelSlot("paraphrase"),
    )
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    assert any(
        error.startswith("--model paraphrase: reference-messages writes no summary with a model")
        for error in report.errors
    ), report.errors
