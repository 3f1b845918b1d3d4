"""crewAI's summarize_messages, run in its own environment (.venv-crewai), and its converter."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from compactcheck.adapters import ADAPTERS, MissingExtraError
from compactcheck.adapters.convert_crewai import from_crewai, to_crewai
from compactcheck.invariants import dump_messages
from compactcheck.strategies import Projected, message_histories
from compactcheck.strategies.messages_view import MessageHistory
from tests.compactcheck.adapters.wire import variants

ROOT = Path(__file__).resolve().parents[3]
CREWAI_PYTHON = ROOT / ".venv-crewai" / "bin" / "python"
needs_crewai_env = pytest.mark.skipif(
    not CREWAI_PYTHON.exists(),
    reason="crewAI is not installed: `./dev crewai-env` makes its environment (.ci/run does)",
)

CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "read", "arguments": '{"path":"a.py"}'},
}
HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "Be careful."},
    {"role": "user", "content": "Goal: fix"},
    {"role": "assistant", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "wrote app.py"},
    {"role": "user", "content": "Go on."},
    {"role": "assistant", "content": "Done."},
]

SCRIPT = """
import json, sys
from compactcheck.adapters.crewai_summarize import SummarizeMessages
history, window = json.loads(sys.stdin.read())
adapter = SummarizeMessages("crewai:summarize-messages")
print(json.dumps(adapter.apply(history, {"context_window": window})))
"""


def _summarise(window: int, history: list[dict[str, Any]] = HISTORY) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(CREWAI_PYTHON), "-c", SCRIPT],
        input=json.dumps([history, window]),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


@settings(max_examples=60, deadline=None)
@given(message_histories())
def test_generated_histories_round_trip(history: Projected[MessageHistory]) -> None:
    messages = dump_messages(history.view.messages)
    assert from_crewai(to_crewai(messages)) == messages


@pytest.mark.parametrize("message", variants(), ids=lambda m: str(sorted(m)))
def test_wire_variants_round_trip(message: dict[str, object]) -> None:
    assert from_crewai(to_crewai([message])) == [message]


@needs_crewai_env
def test_everything_but_the_system_message_becomes_one_summary() -> None:
    conversation = (
        "[USER]: Goal: fix\n\n[ASSISTANT]: [Called tools: read]\n\n"
        "[TOOL_RESULT (unknown)]: wrote app.py\n\n[USER]: Go on.\n\n[ASSISTANT]: Done."
    )
    out = _summarise(100_000)
    assert out[0] == HISTORY[0]
    assert len(out) == 2
    assert out[1]["role"] == "user"
    # crewAI's prompt shows a call by its tool's name only: its arguments never reach the model.
    assert out[1]["content"].startswith(f"<summary>\n{conversation}\n</summary>\n\nContinue")


@needs_crewai_env
def test_a_small_window_summarises_in_chunks_joined_in_order() -> None:
    out = _summarise(240)
    assert len(out) == 2
    text = out[1]["content"]
    assert text.index("Goal: fix") < text.index("wrote app.py") < text.index("Done.")


@needs_crewai_env
def test_an_earlier_summary_does_not_end_the_next_one_early() -> None:
    # The stand-in repeats an earlier summary without its tags: crewAI reads the answer up to
    # the first closing tag, and a repeated one cut everything after it (a stand-in artefact).
    earlier = "<summary>\nGoal: fix\n</summary>\n\nContinue the task."
    history = [
        HISTORY[0],
        {"role": "user", "content": earlier},
        {"role": "user", "content": "[c1] Use Python 3.11"},
    ]
    out = _summarise(100_000, history)
    assert "Use Python 3.11" in out[1]["content"]


def test_without_its_environment_the_target_names_the_command_that_makes_it() -> None:
    if importlib.util.find_spec("crewai") is not None:
        pytest.skip("crewAI is installed in this environment")
    with pytest.raises(MissingExtraError, match=r"\./dev crewai-env"):
        ADAPTERS["crewai:summarize-messages"](timeout=1.0, budget=None)
