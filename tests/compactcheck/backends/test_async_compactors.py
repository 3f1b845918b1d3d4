"""An ``async def`` compactor is a compactor: awaited on one event loop, in the isolated worker and
in-process, through ``fuzz``, transcripts, adapters and the plugin, with its timeout and
isolation intact."""

from __future__ import annotations

import asyncio
import gc
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.backends.inprocess import CallableBackend
from compactcheck.report.model import InvariantResult, TargetReport
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import resolve
from tests.compactcheck.commandline import cli, load, pytest_in

COMPACTORS = Path(__file__).parent / "asynchronous" / "compactors.py"
TRANSCRIPTS = Path(__file__).parents[3] / "examples" / "transcripts"
PATHS = {"worker process": (), "in-process": ("--in-process",)}
MESSAGES = [{"role": "user", "content": "hi"}]


def _run(tmp_path: Path, name: str, *options: str) -> TargetReport:
    done = cli(
        "run",
        f"py:{COMPACTORS}:{name}",
        "--profile",
        "ci",
        "--max-examples",
        "10",
        "--invariants",
        "call_answered,tool_pairing",
        "--min-exercised",
        "0",
        "--json",
        "r.json",
        "--corpus",
        "corpus",
        *options,
        cwd=tmp_path,
    )
    report = load(tmp_path / "r.json")
    assert report.complete, done.stdout[-2000:] + done.stderr[-2000:]
    [target] = report.targets
    return target


def _law(target: TargetReport, invariant: str) -> InvariantResult:
    [result] = [r for r in target.results if r.invariant == invariant]
    return result


@pytest.mark.parametrize("name", ["faithful", "adapter"])
@pytest.mark.parametrize("isolation", list(PATHS))
def test_an_async_compactor_that_keeps_the_laws_passes(
    tmp_path: Path, name: str, isolation: str
) -> None:
    # Before: every call errored ("Object of type coroutine is not JSON serializable").
    target = _run(tmp_path, name, *PATHS[isolation])
    assert target.isolation == isolation
    # Every call awaited on one loop: the compactor raises if awaited on another.
    assert target.calls.get("errored", 0) == 0, target.failures
    assert target.calls.get("compacted", 0) > 0
    assert _law(target, "call_answered").verdict == "pass"
    assert _law(target, "tool_pairing").verdict == "pass"


@pytest.mark.parametrize("isolation", list(PATHS))
def test_an_async_compactor_that_breaks_a_law_is_caught(tmp_path: Path, isolation: str) -> None:
    target = _run(tmp_path, "orphaning", *PATHS[isolation])
    assert target.calls.get("errored", 0) == 0, target.failures
    assert _law(target, "tool_pairing").verdict == "violation"


@pytest.mark.parametrize("isolation", list(PATHS))
def test_what_an_async_compactor_raises_is_a_finding_at_its_line(
    tmp_path: Path, isolation: str
) -> None:
    target = _run(tmp_path, "raises", *PATHS[isolation])
    because = _law(target, "call_answered").because or ""
    assert "ValueError: no summary for you (at " in because, because
    assert f"{COMPACTORS}:" in because, because
    # Good answers were judged beside the fault.
    assert target.calls.get("compacted", 0) >= 2


@pytest.mark.parametrize(
    ("isolation", "because"),
    [("worker process", "worker process did not answer seq"), ("in-process", "no answer within")],
)
def test_a_hung_coroutine_times_out_like_a_hung_function(
    tmp_path: Path, isolation: str, because: str
) -> None:
    target = _run(tmp_path, "hangs", "--timeout", "1", *PATHS[isolation])
    assert target.calls.get("timed out", 0) >= 1
    assert because in (_law(target, "call_answered").because or "")
    # The hung call was cancelled, its loop kept: no later call ran on another loop.
    assert not [kind for kind in target.failures if "another event loop" in kind], target.failures
    assert target.calls.get("compacted", 0) >= 2


def test_in_process_every_call_runs_on_one_loop_kept_for_the_backend() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def records(messages: Any) -> Any:
        loops.append(asyncio.get_running_loop())
        return messages

    backend = CallableBackend(records, name="f", views=("messages",), timeout=5)
    try:
        for _ in range(3):
            assert backend.compact("messages", {"messages": list(MESSAGES)}).kind == "result"
    finally:
        backend.close()
    assert len(loops) == 3
    assert loops[0] is loops[1] is loops[2]


def test_in_process_a_loop_held_by_its_coroutine_is_left_for_a_new_one() -> None:
    # A coroutine that sleeps without awaiting holds its loop: cancelling cannot reach it, so
    # the next call gets a new loop instead of timing out behind it.
    release = threading.Event()
    held: list[bool] = []

    async def holds_once(messages: Any) -> Any:
        if not held:
            held.append(True)
            release.wait(30)
        return messages

    backend = CallableBackend(holds_once, name="f", views=("messages",), timeout=0.3)
    try:
        first = backend.compact("messages", {"messages": list(MESSAGES)})
        second = backend.compact("messages", {"messages": list(MESSAGES)})
    finally:
        release.set()
        backend.close()
    assert first.timed_out
    assert second.kind == "result", second.reason


@pytest.mark.parametrize(
    ("error", "because"),
    [
        (SystemExit(3), "SystemExit(3) raised by the compactor"),
        (KeyboardInterrupt(), "KeyboardInterrupt raised by the compactor itself"),
    ],
)
def test_in_process_a_coroutine_s_exit_or_interrupt_is_its_finding_and_the_loop_lives_on(
    error: BaseException, because: str
) -> None:
    raised: list[bool] = []

    async def ends_once(messages: Any) -> Any:
        if not raised:
            raised.append(True)
            raise error
        return messages

    backend = CallableBackend(ends_once, name="f", views=("messages",), timeout=5)
    try:
        first = backend.compact("messages", {"messages": list(MESSAGES)})
        second = backend.compact("messages", {"messages": list(MESSAGES)})
    finally:
        backend.close()
    assert first.kind == "errored"
    assert because in first.reason
    assert second.kind == "result", second.reason


def test_fuzz_awaits_an_async_callable(tmp_path: Path) -> None:
    from compactcheck.reference_engine.messages import reference_messages

    keep = reference_messages(max_messages=6)

    async def compact(messages: Any) -> Any:
        await asyncio.sleep(0)
        return keep(messages)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = compactcheck.fuzz(compact, max_examples=10, corpus_dir=tmp_path / "corpus")
        gc.collect()
    [target] = report.targets
    assert target.calls.get("errored", 0) == 0, target.failures
    assert {r.invariant: r.verdict for r in target.results}["call_answered"] == "pass"
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_fuzz_on_recorded_transcripts_awaits_an_async_callable(tmp_path: Path) -> None:
    from compactcheck.reference_engine.messages import reference_messages

    keep = reference_messages(max_messages=6)

    async def compact(messages: Any) -> Any:
        await asyncio.sleep(0)
        return keep(messages)

    report = compactcheck.fuzz(
        compact,
        max_examples=5,
        transcripts=TRANSCRIPTS / "openai-chat.json",
        corpus_dir=tmp_path / "corpus",
    )
    [target] = report.targets
    assert target.calls.get("errored", 0) == 0, target.failures
    assert target.calls.get("compacted", 0) > 0


def test_an_async_adapter_object_in_process_is_awaited_and_its_errors_are_answers() -> None:
    target = resolve(f"py:{COMPACTORS}:adapter", calls=Calls(in_process=True, timeout=5))
    try:
        backend = target.backend
        assert backend is not None
        answer = backend.compact("messages", {"messages": list(MESSAGES)})
        assert answer.kind == "result", answer.reason
        assert answer.result == {"messages": MESSAGES}
        broken = backend.compact("messages", {})
        assert broken.kind == "errored"
        assert broken.reason.startswith("KeyError: 'messages'")
    finally:
        target.close()


PLUGIN_TESTS = f"""
import pytest


@pytest.mark.compactcheck("py:{COMPACTORS}:faithful", view="messages")
def test_async(compactcheck_law):
    compactcheck_law.check()
"""


def test_the_plugin_fuzzes_an_async_compactor(tmp_path: Path) -> None:
    (tmp_path / "test_async.py").write_text(PLUGIN_TESTS)
    done = pytest_in(
        tmp_path,
        "--compactcheck-max-examples",
        "10",
        "--compactcheck-invariants",
        "tool_pairing",
        "test_async.py",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
