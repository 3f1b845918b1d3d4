"""The Node harness package: its converters round-trip our histories through the JavaScript
libraries' message types (in a real Node process), its targets run through compactcheck, and a
missing Node or install is one line naming what to run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from compactcheck.adapters import node_harness
from compactcheck.adapters.node_harness import NodeUnavailableError, node_backend
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.invariants import dump_messages
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.formats import Format
from compactcheck.invariants.formats.projection import Features, project_format
from compactcheck.invariants.formats.responses import ResponsesInput
from compactcheck.invariants.laws.messages.responses import item_keeps_its_reasoning
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.features import failed_calls, feature_values
from compactcheck.strategies.messages_view import MessageHistory, project_messages
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.scenarios import scenarios
from tests.compactcheck.adapters.wire import variants

INSTALLED = (
    shutil.which("node") is not None
    and (node_harness.PACKAGE / "node_modules" / "ai" / "package.json").is_file()
)
needs_node = pytest.mark.skipif(
    not INSTALLED, reason=f"needs Node.js and npm ci --prefix {node_harness.PACKAGE}"
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _open(name: str) -> Iterator[CommandBackend]:
    backend = node_backend(f"node:{name}", timeout=30.0, name=name)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def model_messages() -> Iterator[CommandBackend]:
    yield from _open("roundtrip-model-messages")


@pytest.fixture(scope="module")
def langchain() -> Iterator[CommandBackend]:
    yield from _open("roundtrip-langchain")


def _result(backend: CommandBackend, payload: dict[str, Any]) -> dict[str, Any]:
    answer = backend.compact("messages", payload)
    assert answer.kind == "result", answer.reason
    assert answer.result is not None
    return answer.result


@needs_node
@SETTINGS
@given(history=message_histories())
def test_chat_histories_round_trip_through_model_messages(
    model_messages: CommandBackend, history: Projected[MessageHistory]
) -> None:
    messages = dump_messages(history.view.messages)
    assert _result(model_messages, {"messages": messages}) == {"messages": messages}


@needs_node
@SETTINGS
@given(history=message_histories())
def test_chat_histories_round_trip_through_langchain_messages(
    langchain: CommandBackend, history: Projected[MessageHistory]
) -> None:
    messages = dump_messages(history.view.messages)
    assert _result(langchain, {"messages": messages}) == {"messages": messages}


@needs_node
@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(
    model_messages: CommandBackend, langchain: CommandBackend, message: dict[str, Any]
) -> None:
    for backend in (model_messages, langchain):
        assert _result(backend, {"messages": [message]}) == {"messages": [message]}


@needs_node
@pytest.mark.parametrize("format", ["anthropic", "openai-responses"])
@SETTINGS
@given(scenario=scenarios(late_results=False, pending_calls=False), value=feature_values())
def test_provider_requests_round_trip_through_model_messages(
    model_messages: CommandBackend, format: Format, scenario: Scenario, value: int
) -> None:
    messages = project_messages(scenario).messages
    request = project_format(format, messages, Features(value), failed_calls(scenario))
    payload = {"format": format, "request": request}
    assert _result(model_messages, payload) == {"request": request}


TOOL_HISTORY = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "r"},
    {"role": "user", "content": "more"},
]


@needs_node
def test_mastra_tool_call_filter_drops_every_past_call_with_its_result() -> None:
    for backend in _open("mastra-tool-call-filter"):
        answer = _result(backend, {"messages": TOOL_HISTORY, "knobs": [0, 0, 0]})
        assert answer["messages"] == [TOOL_HISTORY[0], TOOL_HISTORY[1], TOOL_HISTORY[4]]


@needs_node
def test_ai_prune_messages_drops_reasoning_and_an_old_tool_pair_of_an_anthropic_history() -> None:
    thinking = {"type": "thinking", "thinking": "plan", "signature": "sig"}
    use = {"type": "tool_use", "id": "t1", "name": "ls", "input": {"path": "."}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}
    request = {
        "system": "s",
        "messages": [
            {"role": "user", "content": "list files"},
            {"role": "assistant", "content": [thinking, use]},
            {"role": "user", "content": [result, {"type": "text", "text": "thanks"}]},
            {"role": "assistant", "content": [thinking, {"type": "text", "text": "done"}]},
        ],
    }
    # knobs: reasoning "all", toolCalls "before-last-message", emptyMessages "remove".
    for backend in _open("ai-prune-messages"):
        payload = {"format": "anthropic", "request": request, "knobs": [1, 1, 0]}
        assert _result(backend, payload)["request"] == {
            "system": "s",
            "messages": [
                {"role": "user", "content": "list files"},
                {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
            ],
        }


@needs_node
def test_a_node_target_runs_end_to_end_through_compactcheck_run(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "compactcheck",
        "run",
        "node:mastra-tool-call-filter",
        "--seed",
        "0",
        "--max-examples",
        "5",
        "--json",
        str(report),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(report.read_text())
    assert "node:mastra-tool-call-filter" in json.dumps(data["targets"])
    assert "@mastra/core@1.71" in json.dumps(data)


def test_a_missing_install_names_npm_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("needs Node.js on PATH (without it the Node error comes first)")
    # The package's files without its node_modules: what a clone holds before npm ci.
    (tmp_path / "harness.js").write_text("// not installed\n")
    monkeypatch.setattr(node_harness, "PACKAGE", tmp_path)
    with pytest.raises(NodeUnavailableError, match="npm ci --prefix") as caught:
        node_backend("node:ai-prune-messages", timeout=5.0)
    assert "\n" not in str(caught.value)


def test_an_installation_without_the_package_says_to_use_a_clone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(node_harness, "PACKAGE", tmp_path / "harnesses" / "node")
    if shutil.which("node") is None:
        pytest.skip("needs Node.js on PATH (without it the Node error comes first)")
    with pytest.raises(NodeUnavailableError, match="run from a clone of the compactcheck"):
        node_backend("node:langchain-trim-messages", timeout=5.0)


def test_a_missing_node_names_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NodeUnavailableError, match=r"needs Node\.js 20 or newer on PATH"):
        node_backend("node:mastra-token-limiter", timeout=5.0)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js on PATH")
def test_init_node_scaffolds_a_harness_that_pytest_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    command = [sys.executable, "-m", "compactcheck", "init", "--node", "--dir", str(project)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "import { serve }" in (project / "compactcheck-harness.mjs").read_text()
    test_module = project / "tests" / "test_compactcheck_conformance.py"
    pytest_run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(test_module),
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",
            "--compactcheck-max-examples",
            "5",
            "--compactcheck-invariants",
            "tool_pairing,goal_preserved",
            "--rootdir",
            str(project),
        ],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=600,
    )
    output = pytest_run.stdout + pytest_run.stderr
    # The scaffolded trimmer keeps the last six messages: it loses the goal, which is the
    # verdict the test must reach through the real harness (exit 1: a law failed).
    assert pytest_run.returncode == 1, output[-3000:]
    assert "goal_preserved" in output
    assert "failed" in output


CHAT_WITNESS = [
    {"role": "system", "content": "You are a careful coding agent."},
    {"role": "user", "content": "Goal: Fix the login bug (AUTH-142)\n\nGo on."},
    {"role": "assistant", "content": "Starting step s1."},
    {"role": "assistant", "content": "Step s1 is complete: pytest ok."},
]


@needs_node
def test_langchainjs_trim_messages_answering_undefined_is_named() -> None:
    # knobs: a quarter of the history, start on a human message: trimMessages answers
    # [undefined] (an upstream defect), reported as an error that says so.
    for backend in _open("langchain-trim-messages"):
        answer = backend.compact("messages", {"messages": CHAT_WITNESS, "knobs": [2, 1]})
        assert answer.kind == "errored"
        assert "returned undefined at index 0" in answer.reason


@needs_node
def test_mastra_token_limiter_is_never_drawn_below_what_it_refuses() -> None:
    newest = {"role": "user", "content": "Go on. " * 200}
    for backend in _open("mastra-token-limiter"):
        for share in range(3):
            payload = {"messages": [*CHAT_WITNESS, newest], "knobs": [share, 0]}
            result = _result(backend, payload)
            assert result["messages"][-1] == newest


@pytest.fixture(scope="module")
def sent_by_sdk() -> Iterator[CommandBackend]:
    yield from _open("ai-prune-messages-sent")


@needs_node
@SETTINGS
@given(scenario=scenarios(late_results=False, pending_calls=False), value=feature_values())
def test_the_reasoning_rule_holds_on_what_the_ai_sdk_sends_after_pruning(
    sent_by_sdk: CommandBackend, scenario: Scenario, value: int
) -> None:
    # pruneMessages leaves a call's item id on it when it strips its reasoning (what the
    # published target judges); the SDK's Responses provider sends no such id, so the request
    # it sends keeps the rule (vercel/ai#11036 does not reproduce on the sent request).
    messages = project_messages(scenario).messages
    request = project_format("openai-responses", messages, Features(value), failed_calls(scenario))
    payload = {"format": "openai-responses", "request": request, "knobs": [0, 0, 0]}
    before = ResponsesInput.model_validate(request)
    after = ResponsesInput.model_validate(_result(sent_by_sdk, payload)["request"])
    assert item_keeps_its_reasoning.check(before, after, Facts(goal="")).violations == ()
