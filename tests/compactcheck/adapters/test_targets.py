"""Every built-in third-party target runs a small budget through the runner without errors."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from compactcheck.adapters import ADAPTERS, EXTRAS, MissingExtraError
from compactcheck.adapters.adapter import AdapterBackend
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.invariants.formats import CHAT
from compactcheck.invariants.formats.conversion import convert
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve

# The module whose absence means the target's extra is not installed.
PROBES = {
    "langchain": "langchain",
    "langmem": "langmem",
    "autogen": "autogen_core",
    "pydantic-ai": "pydantic_ai_harness",
    "conformance-kit": "compaction_kit",
    "haystack": "haystack",
    "google-adk": "google.adk",
    "agent-framework": "agent_framework",
    "inspect-ai": "inspect_ai",
    "openai-agents": "agents",
    "deepagents": "deepagents",
    "agno": "agno",
    "crewai": "crewai",
}


def _installed(target: str) -> bool:
    try:
        return importlib.util.find_spec(PROBES[EXTRAS[target]]) is not None
    except ModuleNotFoundError:  # a dotted probe whose parent package is absent ("google")
        return False


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_small_budget_run_has_no_errored_verdict(name: str, tmp_path: Path) -> None:
    if not _installed(name):
        pytest.skip(f"needs the {EXTRAS[name]!r} extra")
    target = resolve(name, calls=Calls(timeout=60.0))
    # Exploring only: shrinking a real compactor's violations cost about seven times the
    # exploration (8 s against 1 s of CPU for langmem) and a fifth of the suite; the published
    # reports' regeneration shrinks every adapter's violations, and the engine's tests shrink.
    config = RunConfig(seed=0, max_examples=30, profile="ci", corpus_dir=tmp_path, shrink=False)
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    verdicts = {result.invariant: result.verdict for result in report.results}
    assert "errored" not in verdicts.values(), verdicts
    assert any(result.compactions for result in report.results)
    assert verdicts["budget_respected"] == "skipped"


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_answers_carry_the_parameters_they_used(name: str) -> None:
    if not _installed(name):
        pytest.skip(f"needs the {EXTRAS[name]!r} extra")
    backend = ADAPTERS[name](timeout=60.0, budget=None)
    history = [
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": "Goal: fix the bug in app.py"},
        {"role": "assistant", "content": "Looking into it."},
        {"role": "user", "content": "Go on."},
        {"role": "assistant", "content": "Done."},
    ]
    assert isinstance(backend, AdapterBackend)
    format = backend.adapter.format
    # An adapter of a provider format is handed the same history in that format.
    payload: dict[str, object] = (
        {"messages": list(history)}
        if format == CHAT
        else {"format": format, "request": convert(history, CHAT, format)}
    )
    first = backend.compact("messages", dict(payload))
    again = backend.compact("messages", dict(payload))
    assert first.kind == "result", first.reason
    assert first.result is not None
    assert again.result is not None
    assert first.result["parameters"] == again.result["parameters"]
    field = "messages" if format == CHAT else "request"
    assert first.result[field] == again.result[field]


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    # As if autogen-core were not installed, even where an earlier test imported it.
    for module in [m for m in sys.modules if m.split(".")[0] == "autogen_core"]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "autogen_core", None)
    for ours in ("autogen_contexts", "convert_autogen"):
        monkeypatch.delitem(sys.modules, f"compactcheck.adapters.{ours}", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[autogen\]'"):
        ADAPTERS["autogen:buffered"](timeout=1.0, budget=None)
