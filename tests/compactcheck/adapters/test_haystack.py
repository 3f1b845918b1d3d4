"""The Haystack compactors run through the runner, are judged, and say which extra they need."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.adapters import ADAPTERS, MissingExtraError
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve

TARGETS = sorted(name for name in ADAPTERS if name.startswith("haystack:"))

HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix the bug in app.py"},
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path":"app.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "x = 1\n" * 400},
    {"role": "assistant", "content": "Found it."},
    {"role": "user", "content": "Go on."},
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "run", "arguments": '{"command":"pytest"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c2", "content": "1 passed\n" * 100},
    {"role": "assistant", "content": "Done."},
]


def test_every_compactor_is_a_target() -> None:
    assert TARGETS == [
        "haystack:sliding-window",
        "haystack:summarization",
        "haystack:tool-result-offload",
        "haystack:tool-result-pruning",
    ]


@pytest.mark.parametrize("name", TARGETS)
def test_a_short_run_is_judged_without_errors(name: str, tmp_path: Path) -> None:
    pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    target = resolve(name, calls=Calls(timeout=60.0))
    assert target.format == "openai-chat"
    config = RunConfig(seed=0, max_examples=30, profile="ci", corpus_dir=tmp_path)
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    verdicts = {result.invariant: result.verdict for result in report.results}
    assert "errored" not in verdicts.values(), verdicts
    assert verdicts["call_answered"] == "pass", verdicts
    assert any(result.compactions for result in report.results)


@pytest.mark.parametrize("name", TARGETS)
def test_answers_are_deterministic_and_carry_their_parameters(name: str) -> None:
    pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    backend = ADAPTERS[name](timeout=60.0, budget=None)
    answers = [
        backend.compact("messages", {"messages": list(HISTORY), "knobs": [0, 0, 0, 0]})
        for _ in range(2)
    ]
    assert all(answer.kind == "result" for answer in answers), answers[0].reason
    first, again = (answer.result for answer in answers)
    assert first is not None
    assert first == again
    assert first["parameters"]["token_counter"] == "ApproximateTokenCounter"
    assert first["messages"] != HISTORY


def test_offloaded_results_leave_no_files_behind(tmp_path: Path) -> None:
    pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    import tempfile

    backend = ADAPTERS["haystack:tool-result-offload"](timeout=60.0, budget=None)
    before = set(Path(tempfile.gettempdir()).glob("compactcheck-haystack-*"))
    answer = backend.compact("messages", {"messages": list(HISTORY), "knobs": [0, 0, 0, 0]})
    assert answer.result is not None
    pointer = answer.result["messages"][3]["content"]
    assert pointer.startswith("Tool result offloaded to text (2400 characters) at '")
    assert set(Path(tempfile.gettempdir()).glob("compactcheck-haystack-*")) == before


def test_a_declined_compaction_hands_the_history_back() -> None:
    pytest.importorskip("haystack", reason="needs the 'haystack' extra")
    backend = ADAPTERS["haystack:tool-result-pruning"](timeout=60.0, budget=None)
    # No tool result to prune: the compactor answers None.
    history = [message for message in HISTORY if message["role"] in ("system", "user")]
    answer = backend.compact("messages", {"messages": list(history), "knobs": [0, 0, 0]})
    assert answer.result is not None
    assert answer.result["messages"] == history


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # As if haystack-ai were not installed, even where an earlier test imported it.
    for module in [m for m in sys.modules if m.split(".")[0] == "haystack"]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "haystack", None)
    for ours in ("haystack_compaction", "convert_haystack"):
        monkeypatch.delitem(sys.modules, f"compactcheck.adapters.{ours}", raising=False)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[haystack\]'"):
        ADAPTERS["haystack:sliding-window"](timeout=1.0, budget=None)
