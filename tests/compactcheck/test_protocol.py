"""Protocol v1 over real subprocesses: example harnesses round-trip, faulty ones give Answers."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactcheck.backend import Answer
from compactcheck.protocol import ProtocolError
from compactcheck.subprocess_backend import CommandBackend, HarnessStartError

FAULTY = Path(__file__).parent / "harnesses" / "faulty.py"


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


def test_an_exit_mid_run_is_errored_restarted_and_bounded(backend: CommandBackend) -> None:
    first = backend.compact("messages", say("exit"))
    assert first.kind == "errored"
    assert "exited with code 3" in first.reason
    assert "faulty: exiting on purpose" in first.reason
    assert "\n" not in first.reason
    assert backend.compact("messages", say("echo")).kind == "result"
    assert backend.restarts == 1
    assert backend.compact("messages", say("exit")).kind == "errored"
    assert backend.compact("messages", say("exit")).kind == "errored"
    assert backend.restarts == 2
    # The budget (2 restarts) is spent: no third restart, every further call says why.
    for _ in range(2):
        gave_up = backend.compact("messages", say("echo"))
        assert gave_up.kind == "errored"
        assert "max_restarts" in gave_up.reason
        assert "exited with code 3" in gave_up.reason
    assert backend.pid is None
    assert backend.stderr_tail().count("faulty: exiting on purpose") == 3


def test_a_crash_by_signal_names_the_signal(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("kill"))
    assert answer.kind == "errored"
    assert "killed by SIGKILL" in answer.reason
    assert backend.compact("messages", say("echo")).kind == "result"


def test_malformed_json_is_errored_in_one_line(backend: CommandBackend) -> None:
    answer = backend.compact("messages", say("malformed"))
    assert answer.kind == "errored"
    assert "malformed JSON" in answer.reason
    assert "{this is not json" in answer.reason
    assert "\n" not in answer.reason
    assert backend.compact("messages", say("echo")).kind == "result"


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


def test_a_request_that_breaks_the_protocol_is_a_toolkit_error(backend: CommandBackend) -> None:
    with pytest.raises(ProtocolError, match="messages-view compact request"):
        backend.compact("messages", {"messages": [{"role": "robot"}]})
