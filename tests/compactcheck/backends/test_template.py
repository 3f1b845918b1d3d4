"""A run with workers forks each isolated worker from one template process that imported the
compactor once; a forked worker keeps every guarantee of a fresh one, and a template that
cannot fork safely leaves the workers to start fresh, saying so in debug output.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from compactcheck.backends import template, template_process
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB
from compactcheck.targets.registry import TargetError, resolve
from tests.compactcheck.backends.processes import isolated_processes
from tests.compactcheck.commandline import load

HOSTILE = Path(__file__).parent / "hostile" / "compactors.py"

pytestmark = pytest.mark.skipif(
    bool(template_process.fork_unavailable()), reason="this platform cannot fork workers"
)

HISTORY: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Rename the config file to settings.toml."},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Now run the tests."},
        {"role": "assistant", "content": "They pass."},
        {"role": "user", "content": "Thanks."},
    ]
}

THREADED = """
import threading
import time

threading.Thread(target=time.sleep, args=(600,), daemon=True).start()


def compact(messages):
    return messages[-4:]
"""


def _run(tmp_path: Path, spec: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "run",
            f"py:{spec}",
            "--profile",
            "ci",
            "--max-examples",
            "12",
            "--seed",
            "3",
            "--corpus",
            "corpus",
            "--json",
            "r.json",
            *list(options),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, template_process.DEBUG_VARIABLE: "1", "COLUMNS": "160"},
    )


def _parent_of(pid: int) -> int:
    # The fourth field of /proc/PID/stat; the name before it is in parentheses.
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _template_pid(spec: str) -> int:
    return template._templates[spec, DEFAULT_MEMORY_LIMIT_MB].pid


@pytest.fixture
def templates() -> Any:
    """Templates wanted (as in a run with workers) and ended after the test."""
    template.want()
    yield template
    template.close_all()


def _stderr_shows(target: Any, text: str, within: float = 10.0) -> bool:
    """Whether the target's stderr shows ``text`` within ``within`` seconds."""
    until = time.monotonic() + within
    while text not in target.stderr_tail():
        if time.monotonic() > until:
            return False
        time.sleep(0.02)
    return True


def test_a_worker_is_forked_from_the_template_and_answers_as_a_fresh_one(
    templates: Any,
) -> None:
    fresh = resolve(f"py:{HOSTILE}:prints")
    spec = f"{HOSTILE}:prints"
    assert isinstance(fresh.backend, CommandBackend)
    try:
        forked = resolve(f"py:{spec}")
        try:
            assert isinstance(forked.backend, CommandBackend)
            [(name, _)] = template.addresses(DEFAULT_MEMORY_LIMIT_MB)
            assert name == spec
            # Its parent is the template, not this process.
            assert forked.backend.pid is not None
            assert _parent_of(forked.backend.pid) == _template_pid(spec)
            assert forked.implementation == fresh.implementation
            for _ in range(3):
                one = forked.backend.compact("messages", HISTORY)
                two = fresh.backend.compact("messages", HISTORY)
                assert (one.kind, one.result, one.reason) == (two.kind, two.result, two.reason)
            # What it printed went to its own stderr, not to the protocol. A thread reads that
            # pipe, so the line may land a moment after the answer: wait for it, briefly.
            assert _stderr_shows(forked, "compacting 6 messages")
        finally:
            forked.close()
    finally:
        fresh.close()


def test_no_template_is_started_unless_a_run_with_workers_wants_one() -> None:
    target = resolve(f"py:{HOSTILE}:prints")
    try:
        assert template.addresses(DEFAULT_MEMORY_LIMIT_MB) == ()
    finally:
        target.close()


def test_a_compactor_that_cannot_load_is_reported_as_a_fresh_worker_reports_it() -> None:
    with pytest.raises(TargetError) as fresh:
        resolve(f"py:{HOSTILE}:no_such_compactor")
    template.want()
    try:
        with pytest.raises(TargetError) as forked:
            resolve(f"py:{HOSTILE}:no_such_compactor")
        assert len(template.addresses(DEFAULT_MEMORY_LIMIT_MB)) == 1
    finally:
        template.close_all()
    assert "no_such_compactor" in str(fresh.value)
    assert str(forked.value) == str(fresh.value)


def test_a_forked_worker_that_dies_is_reported_and_forked_again(templates: Any) -> None:
    from compactcheck.targets.calls import Calls

    target = resolve(f"py:{HOSTILE}:kills_itself", calls=Calls(timeout=5))
    try:
        assert isinstance(target.backend, CommandBackend)
        first = target.backend.pid
        answers = [target.backend.compact("messages", HISTORY) for _ in range(4)]
        assert [answer.kind for answer in answers] == ["result", "result", "errored", "result"]
        assert "worker process was killed by SIGKILL" in (answers[2].reason or "")
        # Restarted: a new fork from the same template.
        assert target.backend.pid not in (None, first)
        assert _parent_of(target.backend.pid or 0) == _template_pid(f"{HOSTILE}:kills_itself")
    finally:
        target.close()


@pytest.mark.parametrize(
    ("name", "because", "options"),
    [
        ("exits_hard", "worker process exited with code 7", ()),
        ("segfaults", "Fatal Python error: Segmentation fault, in string_at", ()),
        (
            "eats_memory",
            "MemoryError: the compactor ran out of memory under the worker's limit of 300 MB",
            ("--memory-limit", "300"),
        ),
        ("spins", "worker process did not answer seq", ("--timeout", "1")),
    ],
)
def test_each_fault_of_a_forked_worker_is_a_finding_of_its_call(
    tmp_path: Path, name: str, because: str, options: tuple[str, ...]
) -> None:
    done = _run(
        tmp_path,
        f"{HOSTILE}:{name}",
        "--workers",
        "2",
        "--invariants",
        "call_answered,tool_pairing",
        *options,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "forked from the template" in done.stderr
    assert "started fresh" not in done.stderr
    [target] = load(tmp_path / "r.json").targets
    assert target.isolation == "worker process"
    [call] = [r for r in target.results if r.invariant == "call_answered"]
    assert call.verdict == "violation"
    assert because in (call.because or ""), call.because
    # Good answers were judged beside the fault: the worker was forked again after it.
    assert target.calls.get("compacted", 0) + target.calls.get("unchanged", 0) >= 2


def test_a_module_that_starts_threads_at_import_is_started_fresh_with_the_same_verdicts(
    tmp_path: Path,
) -> None:
    (tmp_path / "threaded.py").write_text(THREADED)
    (tmp_path / "plain.py").write_text(THREADED.split("\n\n\n", 1)[1])
    threaded = _run(tmp_path, "threaded.py:compact", "--workers", "2")
    assert "forked from the template" not in threaded.stderr
    assert "worker process started fresh: importing py:threaded.py:compact started" in (
        threaded.stderr
    )
    verdicts = {r.invariant: r.verdict for r in load(tmp_path / "r.json").targets[0].results}
    plain = _run(tmp_path, "plain.py:compact", "--workers", "2")
    assert "forked from the template" in plain.stderr
    assert verdicts == {
        r.invariant: r.verdict for r in load(tmp_path / "r.json").targets[0].results
    }
    assert threaded.returncode == plain.returncode


def test_without_fork_no_template_is_started(
    templates: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delattr(os, "fork")
    monkeypatch.setenv(template_process.DEBUG_VARIABLE, "1")
    target = resolve(f"py:{HOSTILE}:prints")
    try:
        assert template.addresses(DEFAULT_MEMORY_LIMIT_MB) == ()
        assert target.backend is not None
        assert target.backend.compact("messages", HISTORY).kind == "result"
    finally:
        target.close()
    assert "no template process: this platform has no fork" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_neither_template_nor_forked_workers_outlive_the_run(
    tmp_path: Path, how: signal.Signals
) -> None:
    module = tmp_path / "spinner.py"
    module.write_text(HOSTILE.read_text())
    spec = f"{module}:spins"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "compactcheck",
            "run",
            f"py:{spec}",
            "--workers",
            "2",
            "--timeout",
            "600",
            "--max-examples",
            "50",
            "--corpus",
            "corpus",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        # The template and the two workers forked from it (the parent's own one has ended).
        while len(isolated_processes(spec)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(isolated_processes(spec)) >= 3, "the forked workers never started"
        # Let the compactors reach their endless loops.
        time.sleep(3)
        run.send_signal(how)
        run.wait(60)
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 20
    while isolated_processes(spec) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not isolated_processes(spec)


def test_the_template_ends_with_its_owner(tmp_path: Path) -> None:
    # An owner process that starts a template and dies by SIGKILL, without closing it.
    script = (
        "import json, os, sys\n"
        "from compactcheck.backends import template\n"
        "template.want()\n"
        f"t = template.template_for({str(HOSTILE) + ':prints'!r}, 0, dict(os.environ))\n"
        "print(t.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    owner = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    pid = int(owner.stdout.split()[0])
    deadline = time.monotonic() + 20
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists() or "Z" in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_templates_are_named_to_run_workers_by_spec(templates: Any) -> None:
    from compactcheck.targets.calls import Calls
    from compactcheck.targets.registry import templates_for

    calls = templates_for([f"py:{HOSTILE}:prints", "reference-messages"], Calls())
    [(spec, address)] = calls.templates
    assert spec == f"{HOSTILE}:prints"
    assert Path(address).exists()
    assert templates_for([f"py:{HOSTILE}:prints"], Calls(in_process=True)).templates == ()
    assert json.dumps(calls.templates)


def test_under_pytest_the_target_opened_at_collection_and_fuzzed_shares_one_template(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain.py").write_text("def compact(messages):\n    return list(messages)\n")
    (tmp_path / "test_plain.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.compactcheck("py:plain.py:compact", view="messages")\n'
        "def test_plain(compactcheck_law):\n"
        "    compactcheck_law.check()\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            "-s",
            "-n",
            "0",
            "--compactcheck-max-examples",
            "5",
            "--compactcheck-seed",
            "1",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, template_process.DEBUG_VARIABLE: "1"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    output = done.stdout + done.stderr
    # One import of the compactor: the worker opened at collection and the one fuzzed are forks.
    assert output.count("template process") == 1
    assert output.count("forked from the template") == 2
    assert "started fresh" not in output


def test_a_worker_that_ended_at_once_is_seen_ended_from_the_first_answer() -> None:
    # The template may send the pid and the exit status in one piece.
    mine, theirs = socket.socketpair()
    fds = [fd for pipe in (os.pipe(), os.pipe(), os.pipe()) for fd in pipe]
    life_read, life_write = os.pipe()
    worker = template.ForkedWorker(
        os.getpid(), mine, life_write, (fds[1], fds[2], fds[4]), b'{"status": -9}\n'
    )
    try:
        assert worker.poll() == -9
        assert worker.wait(0) == -9
        # Its lifeline was let go with it.
        assert os.read(life_read, 1) == b""
    finally:
        theirs.close()
        for fd in (fds[0], fds[3], fds[5], life_read):
            os.close(fd)


def test_a_template_that_is_gone_leaves_the_worker_to_start_fresh(
    templates: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(template_process.DEBUG_VARIABLE, "1")
    spec = f"{HOSTILE}:prints"
    first = resolve(f"py:{spec}")
    first.close()
    gone = template._templates[spec, DEFAULT_MEMORY_LIMIT_MB]
    os.kill(gone.pid, signal.SIGKILL)
    gone._process.wait()
    target = resolve(f"py:{spec}")
    try:
        assert target.backend is not None
        assert target.backend.compact("messages", HISTORY).kind == "result"
        assert _parent_of(target.backend.pid or 0) == os.getpid()  # type: ignore[attr-defined]
    finally:
        target.close()
    assert "worker process started fresh: the template" in capsys.readouterr().err
