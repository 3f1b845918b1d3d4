"""Protocol v1 over real subprocesses: example harnesses round-trip, faulty ones give Answers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from compactcheck.backends.harness_process import HarnessStartError
from compactcheck.backends.lines import decode_line, parse_line
from compactcheck.backends.protocol import (
    CompactResponse,
    ProtocolError,
    SessionFailure,
    SessionResult,
)
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.base.backend import Answer
from compactcheck.base.errors import CompactcheckError
from compactcheck.invariants.catalogue import catalogue, run_checks
from compactcheck.invariants.messages import parse_messages
from compactcheck.schemas import shipped
from compactcheck.strategies.messages_facts import messages_facts
from compactcheck.strategies.messages_view import MessageHistory, message_histories
from compactcheck.strategies.projected import Projected
from compactcheck.strategies.scenarios import scenarios

FAULTY = Path(__file__).parents[1] / "harnesses" / "faulty.py"
EXAMPLES = Path(__file__).parents[3] / "examples"
NODE_HARNESS = EXAMPLES / "node-harness" / "harness.js"
PYTHON_HARNESS = EXAMPLES / "python-harness" / "harness.py"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def say(text: str) -> dict[str, Any]:
    """A messages-view payload whose last message names the fault the harness should show."""
    return {
        "messages": [
            {"role": "user", "content": "fix the build"},
            {"role": "user", "content": text},
        ]
    }


def faulty(*options: str, **kwargs: Any) -> CommandBackend:
    """The faulty harness, with short limits so that faults show quickly."""
    kwargs.setdefault("timeout", 5.0)
    return CommandBackend([sys.executable, str(FAULTY), *options], **kwargs)


@pytest.fixture
def backend() -> Iterator[CommandBackend]:
    harness = faulty(max_restarts=2)
    yield harness
    harness.close()


def test_handshake_and_echo_round_trip(backend: CommandBackend) -> None:
    assert backend.implementation.name == "faulty"
    assert backend.implementation.views == ["messages"]
    answer = backend.compact("messages", say("echo"))
    assert answer == Answer.ok(say("echo"))


def test_other_views_are_skipped_by_the_harness(backend: CommandBackend) -> None:
    payload = {"log": [], "mode": "manual"}
    assert backend.compact("session", payload) == Answer.skip("faulty only compacts messages")


def test_a_compactor_that_raises_is_errored_with_its_message_and_traceback(
    backend: CommandBackend,
) -> None:
    pid = backend.pid
    answer = backend.compact("messages", say("raise"))
    assert answer.kind == "errored"
    assert answer.reason.startswith("the compactor broke on purpose\n")
    assert "Traceback" in answer.reason
    assert not answer.timed_out
    assert backend.pid == pid, "a handled error must not cost a restart"
    assert backend.compact("messages", say("echo")).kind == "result"


def test_a_hang_times_out_kills_and_the_next_call_runs_on_a_fresh_process() -> None:
    with faulty(timeout=1.0) as backend:
        pid = backend.pid
        started = time.monotonic()
        answer = backend.compact("messages", say("hang"))
        assert time.monotonic() - started < 3.0
        assert answer.kind == "errored"
        assert answer.timed_out
        assert "within 1 s" in answer.reason
        assert backend.compact("messages", say("echo")) == Answer.ok(say("echo"))
        assert backend.pid != pid
        assert backend.restarts == 0, "a timeout is not a crash of the harness"


def test_an_exit_mid_run_is_errored_and_restarted(backend: CommandBackend) -> None:
    first = backend.compact("messages", say("exit"))
    assert first.kind == "errored"
    assert "exited with code 3" in first.reason
    assert "faulty: exiting on purpose" in first.reason
    assert "\n" not in first.reason
    assert backend.compact("messages", say("echo")).kind == "result"
    assert backend.restarts == 1
    # It has answered: a harness that dies on some inputs is restarted every time, past the
    # budget (each death is that call's finding, and shrinking one means many in a row).
    for _ in range(4):
        assert backend.compact("messages", say("exit")).kind == "errored"
    assert backend.compact("messages", say("echo")).kind == "result"
    assert backend.restarts == 5
    assert backend.stderr_tail().count("faulty: exiting on purpose") == 5


def test_a_harness_that_never_answers_is_given_up_after_its_restarts(
    backend: CommandBackend,
) -> None:
    for _ in range(3):
        assert backend.compact("messages", say("exit")).kind == "errored"
    assert backend.restarts == 2
    # The budget (2 restarts) is spent and it never answered: every further call says why.
    for _ in range(2):
        gave_up = backend.compact("messages", say("echo"))
        assert gave_up.kind == "errored"
        assert "max_restarts" in gave_up.reason
        assert "without ever answering" in gave_up.reason
        assert "exited with code 3" in gave_up.reason
    assert backend.pid is None
    assert backend.stderr_tail().count("faulty: exiting on purpose") == 3


def test_a_crash_by_signal_names_the_signal(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("kill"))
    assert answer.kind == "errored"
    assert "killed by SIGKILL" in answer.reason
    assert backend.compact("messages", say("echo")).kind == "result"


def test_a_harness_that_closes_stdout_but_lives_on_is_killed_and_restarted(
    backend: CommandBackend,
) -> None:
    answer = backend.compact("messages", say("close-stdout"))
    assert answer.kind == "errored"
    assert "closed its stdout without exiting" in answer.reason
    assert backend.compact("messages", say("echo")).kind == "result"
    assert backend.restarts == 1


def test_a_harness_silent_at_start_is_refused_after_the_start_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(
        HarnessStartError, match=r"did not answer the start handshake within 0\.5 s"
    ):
        faulty("--silent-start", start_timeout=0.5)
    assert time.monotonic() - started < 3.0


def test_malformed_json_is_errored_in_one_line(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("malformed"))
    assert answer.kind == "errored"
    assert "malformed JSON" in answer.reason
    assert "{this is not json" in answer.reason
    assert "\n" not in answer.reason
    assert backend.compact("messages", say("echo")).kind == "result"


def test_what_json_does_not_allow_is_malformed_json() -> None:
    # Python's json module writes NaN and Infinity by default; neither is JSON.
    for line in (b'{"seq": 1, "skipped": {"reason": "x"}, "score": NaN}', b'{"seq": Infinity}'):
        with pytest.raises(ProtocolError, match="malformed JSON"):
            parse_line(line)


def test_schema_breaking_json_is_errored_with_the_schema_error(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("schema"))
    assert answer.kind == "errored"
    assert "protocol-compact-response" in answer.reason
    assert "result" in answer.reason
    assert "'robot'" in answer.reason
    assert "\n" not in answer.reason


def test_a_wrong_seq_is_errored_naming_both(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("wrong-seq"))
    assert answer.kind == "errored"
    assert "['not', 1]" in answer.reason
    assert "seq 1" in answer.reason


def test_a_stale_second_answer_does_not_shift_later_answers(backend: CommandBackend) -> None:
    assert backend.compact("messages", say("twice")).kind == "result"
    assert backend.compact("messages", say("echo")) == Answer.ok(say("echo"))


def test_an_enormous_answer_hits_the_size_cap_and_the_stream_recovers() -> None:
    with faulty(max_answer_bytes=100_000) as backend:
        pid = backend.pid
        answer = backend.compact("messages", say("huge:3000000"))
        assert answer.kind == "errored"
        assert "100000-byte cap" in answer.reason
        assert "max_answer_bytes" in answer.reason
        assert backend.compact("messages", say("huge:1000")).kind == "result"
        assert backend.pid == pid, "the rest of the long line was skipped, no restart needed"


def test_chatty_stderr_never_blocks_and_its_tail_is_kept() -> None:
    with faulty(timeout=10.0, stderr_bytes=4096) as backend:
        answer = backend.compact("messages", say("chatty:2000000"))
        assert answer.kind == "result"
        # stderr is drained on its own thread, which may still be catching up on a busy machine.
        deadline = time.monotonic() + 10
        tail = backend.stderr_tail()
        while not tail.rstrip().endswith("last words before answering"):
            assert time.monotonic() < deadline, tail[-300:]
            time.sleep(0.05)
            tail = backend.stderr_tail()
        assert len(tail) <= 4096
        assert tail.rstrip().endswith("faulty: last words before answering")


def test_close_sends_stop_and_the_harness_exits_cleanly() -> None:
    backend = faulty()
    backend.close()
    assert "faulty: stopped cleanly" in backend.stderr_tail()
    assert (
        backend.compact("messages", say("echo")).reason
        == "harness unavailable: the backend was closed"
    )


def test_close_kills_a_harness_that_ignores_stop() -> None:
    backend = faulty("--ignore-stop")
    started = time.monotonic()
    backend.close()
    assert time.monotonic() - started < 4.0
    assert backend.pid is None


def test_a_harness_speaking_another_version_is_refused_at_start() -> None:
    with pytest.raises(HarnessStartError) as caught:
        faulty("--protocol-version", "2")
    message = str(caught.value)
    assert "protocol version 2" in message
    assert "compactcheck speaks version 1" in message
    assert "\n" not in message


def test_stdout_noise_before_the_handshake_is_refused_with_advice() -> None:
    with pytest.raises(HarnessStartError, match="stderr, never stdout"):
        faulty("--banner")


def test_a_harness_that_exits_at_start_shows_its_stderr() -> None:
    with pytest.raises(HarnessStartError) as caught:
        faulty("--exit-at-start")
    assert "exited with code 2" in str(caught.value)
    assert "cannot load the compactor" in str(caught.value)


def test_a_command_that_does_not_exist_is_one_clear_line() -> None:
    with pytest.raises(HarnessStartError) as caught:
        CommandBackend.from_command_line("no-such-harness-7f3a --serve", timeout=1.0)
    message = str(caught.value)
    assert "'no-such-harness-7f3a'" in message
    assert "no such command" in message
    assert "\n" not in message


def test_command_lines_are_split_never_run_by_a_shell() -> None:
    hostile = "$(touch pwned); rm -rf / `id` | cat > x"
    command = f"{sys.executable} {FAULTY} --name '{hostile}'"
    with CommandBackend.from_command_line(command, timeout=5.0) as backend:
        assert backend.implementation.name == hostile


def test_a_request_json_cannot_carry_is_a_toolkit_error(backend: CommandBackend) -> None:
    # Requests are valid by construction (tests/compactcheck/harness/test_requests.py checks
    # the drivers' lines against the schema); what cannot be encoded at all still says so.
    with pytest.raises(ProtocolError, match="within 64 bits"):
        backend.compact("messages", {"messages": [], "knobs": [2**70]})
    assert backend.compact("messages", say("echo")) == Answer.ok(say("echo"))


def test_a_session_failure_keeps_its_wire_format_and_unknown_fields_are_ignored() -> None:
    answer = {
        "seq": 3,
        "result": {"appended": [], "error": {"code": "busy", "message": "a turn is open"}},
    }
    line = json.dumps({**answer, "laterField": True}).encode()
    data, parsed = decode_line(line, CompactResponse[SessionResult])
    assert isinstance(parsed, CompactResponse)
    assert isinstance(parsed.result, SessionResult)
    assert parsed.result.error == SessionFailure(code="busy", message="a turn is open")
    assert parsed.to_json_data() == answer
    assert data["laterField"] is True


def test_an_answer_that_breaks_the_schema_is_one_line_under_the_error_root() -> None:
    line = b'{"seq": 1, "result": {"appended": [], "error": {"code": "", "message": 1}}}'
    with pytest.raises(CompactcheckError) as raised:
        decode_line(line, CompactResponse[SessionResult])
    assert isinstance(raised.value, ProtocolError)
    message = str(raised.value)
    assert "\n" not in message
    assert "error.code: String should have at least 1 character" in message
    assert "more problems)" in message


# -- the example harnesses ---------------------------------------------------------------------

HISTORY: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent.\nConstraints:\n- [c1] Use 3.11"},
    {"role": "user", "content": "Goal: fix the login bug"},
    {
        "role": "assistant",
        "content": "Reading first.\nThen editing.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "src/login.py"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "tests/test_login.py"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "def login(user):\n    ..."},
    {"role": "tool", "tool_call_id": "call_2", "content": "def test_login():\n    ..."},
    {"role": "user", "content": "Go on.\n- [c2] Use 3.12 (replaces [c1] Use 3.11)"},
    {"role": "assistant", "content": "Edited src/login.py."},
    {"role": "user", "content": "Run the tests."},
    {"role": "assistant", "content": "All green."},
]


def request_lines(*requests: dict[str, Any]) -> str:
    return "".join(json.dumps(request) + "\n" for request in requests)


@needs_node
def test_node_example_speaks_protocol_v1_by_the_shipped_schemas() -> None:
    assert NODE is not None
    requests: list[dict[str, Any]] = [
        {"cmd": "start", "version": 1},
        {
            "cmd": "compact",
            "seq": {"opaque": [1, "a"]},
            "view": "messages",
            "input": {"messages": HISTORY},
        },
        {"cmd": "compact", "seq": 2, "view": "session", "input": {"log": [], "mode": "manual"}},
        {"cmd": "stop"},
    ]
    schemas = [
        "protocol-start-request",
        "protocol-compact-request",
        "protocol-compact-request",
        "protocol-stop-request",
    ]
    for request, name in zip(requests, schemas, strict=True):
        jsonschema.Draft202012Validator(shipped(name)).validate(request)
    done = subprocess.run(
        [NODE, str(NODE_HARNESS)],
        input=request_lines(*requests),
        capture_output=True,
        text=True,
        timeout=20,
        env={**os.environ, "COMPACT_MAX_MESSAGES": "5"},
        check=True,
    )
    start, compacted, skipped = (json.loads(line) for line in done.stdout.splitlines())
    jsonschema.Draft202012Validator(shipped("protocol-start-response")).validate(start)
    answers = jsonschema.Draft202012Validator(shipped("protocol-compact-response"))
    answers.validate(compacted)
    answers.validate(skipped)
    assert start["implementation"]["views"] == ["messages"]
    assert compacted["seq"] == {"opaque": [1, "a"]}
    assert skipped == {
        "seq": 2,
        "skipped": {"reason": "this harness compacts the messages view, not session"},
    }
    out = compacted["result"]["messages"]
    assert len(out) == 5
    assert out[:2] == HISTORY[:2]
    assert out[-2:] == HISTORY[-2:]
    summary = out[2]["content"]
    assert '{"path": "src/login.py"}' in summary
    assert "call_2" in summary
    assert "- tool result call_1: def login(user):" in summary
    assert "    ..." not in summary, "only first lines of tool results go into the summary"


@needs_node
def test_node_example_reports_a_throwing_compactor_as_errored() -> None:
    assert NODE is not None
    bad = {"cmd": "compact", "seq": 1, "view": "messages", "input": {"messages": None}}
    done = subprocess.run(
        [NODE, str(NODE_HARNESS)],
        input=request_lines({"cmd": "start", "version": 1}, bad, {"cmd": "stop"}),
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    errored = json.loads(done.stdout.splitlines()[1])
    jsonschema.Draft202012Validator(shipped("protocol-compact-response")).validate(errored)
    assert "null" in errored["errored"]["message"]
    assert "exampleCompactor" in errored["errored"]["traceback"]


def keeps_every_messages_law(backend: CommandBackend, examples: int) -> None:
    """Generated histories through a harness: every answer is a result and breaks no law."""
    laws = catalogue("messages")
    shrunk = 0

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(message_histories(scenarios(max_turns=5, max_actions=6)))
    def check(projected: Projected[MessageHistory]) -> None:
        nonlocal shrunk
        history = projected.view.as_dicts()
        answer = backend.compact("messages", {"messages": history})
        assert answer.kind == "result", answer.reason
        assert answer.result is not None
        before = projected.view.messages
        after = parse_messages(answer.result["messages"])
        shrunk += len(after) < len(before)
        findings = run_checks(laws, before, after, messages_facts(projected))
        broken = [violation.because for finding in findings for violation in finding.violations]
        assert not broken, broken

    check()
    assert shrunk >= examples // 3, "the harness must actually compact most generated histories"


@needs_node
def test_node_example_keeps_every_messages_law_on_generated_histories() -> None:
    assert NODE is not None
    env = {**os.environ, "COMPACT_MAX_MESSAGES": "4"}
    with CommandBackend([NODE, str(NODE_HARNESS)], timeout=10.0, env=env) as backend:
        assert backend.implementation.language == "javascript"
        keeps_every_messages_law(backend, examples=80)


def test_python_example_keeps_every_messages_law_on_generated_histories() -> None:
    env = {**os.environ, "COMPACT_MAX_MESSAGES": "4"}
    with CommandBackend([sys.executable, str(PYTHON_HARNESS)], timeout=10.0, env=env) as backend:
        assert backend.implementation.name == "example-python-compactor"
        keeps_every_messages_law(backend, examples=40)


def test_python_example_wraps_a_users_function(tmp_path: Path) -> None:
    (tmp_path / "my_compactor.py").write_text(
        "def last_two(messages):\n"
        "    return messages[-2:]\n"
        "def broken(messages):\n"
        "    raise RuntimeError('summariser offline')\n"
    )
    argv = [sys.executable, str(PYTHON_HARNESS)]
    with CommandBackend([*argv, "my_compactor:last_two"], cwd=tmp_path) as backend:
        assert backend.implementation.name == "my_compactor:last_two"
        assert backend.compact("messages", {"messages": HISTORY}) == Answer.ok(
            {"messages": HISTORY[-2:]}
        )
        session = backend.compact("session", {"log": [], "mode": "pressure"})
        assert session.kind == "skipped"
    with CommandBackend([*argv, "my_compactor:broken"], cwd=tmp_path) as backend:
        answer = backend.compact("messages", {"messages": HISTORY})
        assert answer.kind == "errored"
        assert answer.reason.startswith("summariser offline\n")
        assert "RuntimeError" in answer.reason
