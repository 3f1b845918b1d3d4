"""Google ADK's events compaction runs in the Gemini format, is judged, and names its extra."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.adapters import ADAPTERS, MissingExtraError
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import TargetError, resolve

TARGETS = ["google-adk:events-compaction", "google-adk:token-threshold"]

SYSTEM = {"parts": [{"text": "Be careful."}]}


def _turn(question: str, ident: str) -> list[dict[str, Any]]:
    call = {"name": "read_file", "args": {"path": "app.py"}, "id": ident}
    response = {"name": "read_file", "response": {"output": "x = 1\n" * 50}, "id": ident}
    return [
        {"role": "user", "parts": [{"text": question}]},
        {"role": "model", "parts": [{"functionCall": call}]},
        {"role": "user", "parts": [{"functionResponse": response}]},
        {"role": "model", "parts": [{"text": f"Read it for {ident}."}]},
    ]


REQUEST: dict[str, Any] = {
    "systemInstruction": SYSTEM,
    "contents": [
        *_turn("Goal: fix the bug in app.py", "c1"),
        *_turn("And the tests?", "c2"),
        *_turn("Go on.", "c3")[:3],
    ],
}


def _payload(knobs: list[int]) -> dict[str, Any]:
    return {"format": "gemini", "request": REQUEST, "knobs": knobs}


def test_the_targets_are_registered() -> None:
    assert [name for name in sorted(ADAPTERS) if name.startswith("google-adk:")] == TARGETS


@pytest.mark.parametrize("name", TARGETS)
def test_a_short_run_in_the_gemini_format_is_judged_without_errors(
    name: str, tmp_path: Path
) -> None:
    pytest.importorskip("google.adk", reason="needs the 'google-adk' extra")
    target = resolve(name, calls=Calls(timeout=60.0))
    # No --format named: the registry drives an adapter in the one format it speaks.
    assert target.format == "gemini"
    assert target.implementation.formats == ["gemini"]
    config = RunConfig(seed=0, max_examples=30, profile="ci", corpus_dir=tmp_path)
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    verdicts = {result.invariant: result.verdict for result in report.results}
    assert "errored" not in verdicts.values(), verdicts
    assert verdicts["call_answered"] == "pass", verdicts
    assert any(result.compactions for result in report.results)
    # The Gemini structural laws judge its answers too.
    assert any(invariant.startswith("gemini_") for invariant in verdicts)


@pytest.mark.parametrize("name", TARGETS)
def test_a_chat_run_is_refused(name: str) -> None:
    pytest.importorskip("google.adk", reason="needs the 'google-adk' extra")
    with pytest.raises(TargetError, match="--format gemini"):
        resolve(name, calls=Calls(timeout=60.0), format="anthropic")


def test_the_sliding_window_summarises_completed_invocations() -> None:
    pytest.importorskip("google.adk", reason="needs the 'google-adk' extra")
    backend = ADAPTERS["google-adk:events-compaction"](timeout=60.0, budget=None)
    # compaction_interval 2, overlap_size 0: once the second invocation is complete.
    answers = [backend.compact("messages", _payload([1, 0])) for _ in range(2)]
    assert all(answer.kind == "result" for answer in answers), answers[0].reason
    first, again = (answer.result for answer in answers)
    assert first is not None
    assert first == again
    assert first["parameters"] == {"compaction_interval": 2, "overlap_size": 0}
    request = first["request"]
    assert request["systemInstruction"] == SYSTEM
    contents = request["contents"]
    # The echo summary of both completed invocations, then the live one as it was.
    assert contents[0]["role"] == "model"
    summary = contents[0]["parts"][0]["text"]
    assert "user: Goal: fix the bug in app.py" in summary
    assert "user: And the tests?" in summary
    assert contents[1:] == REQUEST["contents"][8:]


def test_the_token_threshold_can_summarise_the_live_question() -> None:
    pytest.importorskip("google.adk", reason="needs the 'google-adk' extra")
    backend = ADAPTERS["google-adk:token-threshold"](timeout=60.0, budget=None)
    # token_threshold 25 % of the request, event_retention_size 0: before the request is sent,
    # every event is summarised, the question the model is about to answer included.
    answer = backend.compact("messages", _payload([0, 1]))
    assert answer.result is not None
    assert answer.result["parameters"]["event_retention_size"] == 0
    contents = answer.result["request"]["contents"]
    assert [content["role"] for content in contents] == ["model"]
    assert "user: Go on." in contents[0]["parts"][0]["text"]


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # As if google-adk were not installed, even where an earlier test imported it.
    for module in [m for m in sys.modules if m == "google.adk" or m.startswith("google.adk.")]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "google.adk", None)
    for ours in ("adk_compaction", "convert_adk"):
        monkeypatch.delitem(sys.modules, f"compactcheck.adapters.{ours}", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[google-adk\]'"):
        ADAPTERS["google-adk:events-compaction"](timeout=1.0, budget=None)
