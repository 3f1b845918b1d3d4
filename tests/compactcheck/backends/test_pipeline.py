"""Pipelined requests over real harness processes: answers matched by seq, faults per request."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compactcheck
from compactcheck.backends.ahead import answered_ahead
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.base.backend import Answer
from compactcheck.base.call_law import CALL_ANSWERED
from compactcheck.corpus.replay import replay, replay_entry
from compactcheck.invariants import View, dump_messages
from compactcheck.observed.transcripts import load_transcripts
from compactcheck.strategies.messages_view import message_histories
from compactcheck.strategies.projected import Projected
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import isolated_backend

HARNESSES = Path(__file__).parents[1] / "harnesses"
FAULTY = HARNESSES / "faulty.py"
REVERSES = HARNESSES / "reverses.py"
EXAMPLES = Path(__file__).parents[3] / "examples"
PYTHON_HARNESS = EXAMPLES / "python-harness" / "harness.py"
SHIPPED = EXAMPLES / "transcripts"


def said(text: str, index: int = 0) -> tuple[View, dict[str, Any]]:
    """A messages request whose last message names the fault the faulty harness shows."""
    return (
        "messages",
        {
            "messages": [
                {"role": "user", "content": f"request {index}"},
                {"role": "user", "content": text},
            ]
        },
    )


def echoed(answer: Answer) -> Any:
    """The messages an echoing harness handed back."""
    assert answer.kind == "result", answer.reason
    assert answer.result is not None
    return answer.result["messages"]


@pytest.fixture
def faulty() -> Iterator[CommandBackend]:
    with CommandBackend([sys.executable, str(FAULTY)], timeout=5.0) as backend:
        yield backend


def test_answers_given_out_of_order_are_matched_by_seq() -> None:
    requests = [said("echo", index) for index in range(23)]
    with CommandBackend([sys.executable, str(REVERSES), "--group", "5"]) as backend:
        answers = backend.compact_many(requests)
    # Each answer is the echo of its own request, though the harness answered last first.
    assert [echoed(answer) for answer in answers] == [p["messages"] for _, p in requests]


def test_a_harness_that_asks_for_one_at_a_time_gets_one_at_a_time() -> None:
    argv = [sys.executable, str(REVERSES), "--group", "1", "--max-in-flight", "1"]
    with CommandBackend(argv, window=16) as backend:
        assert backend.window == 1
        answers = backend.compact_many([said("echo", index) for index in range(5)])
    assert [echoed(a)[0]["content"] for a in answers] == [f"request {i}" for i in range(5)]


def test_a_harness_that_dies_mid_window_fails_that_request_and_answers_the_rest(
    faulty: CommandBackend,
) -> None:
    requests = [said("echo", 0), said("echo", 1), said("exit", 2), said("echo", 3)]
    requests += [said("kill", 4), *(said("echo", index) for index in range(5, 12))]
    answers = faulty.compact_many(requests)
    died, killed = answers[2], answers[4]
    assert died.kind == "errored"
    assert died.reason.startswith("harness exited with code 3")
    assert died.reason.endswith("(stderr ends: faulty: exiting on purpose) while answering seq 3")
    assert killed.kind == "errored"
    assert "was killed by SIGKILL" in killed.reason
    others = [answer for index, answer in enumerate(answers) if index not in (2, 4)]
    # The requests behind each death were sent again to the restarted harness.
    assert [echoed(a)[0]["content"] for a in others] == [
        f"request {i}" for i in range(12) if i not in (2, 4)
    ]
    assert faulty.restarts == 2
    assert "restarting it" in faulty.stderr_tail()


def test_a_hung_harness_times_out_that_request_and_answers_the_rest() -> None:
    requests = [said("echo", 0), said("hang", 1), *(said("echo", i) for i in range(2, 6))]
    with CommandBackend([sys.executable, str(FAULTY)], timeout=1.0) as backend:
        answers = backend.compact_many(requests)
    hung = answers[1]
    assert hung.kind == "errored"
    assert hung.timed_out
    assert "did not answer seq 2 within 1 s" in hung.reason
    assert [echoed(a)[0]["content"] for i, a in enumerate(answers) if i != 1] == [
        f"request {i}" for i in range(6) if i != 1
    ]


def test_unmatched_and_malformed_answers_are_charged_to_the_oldest_request(
    faulty: CommandBackend,
) -> None:
    requests = [said("twice", 0), said("wrong-seq", 1), said("malformed", 2), said("echo", 3)]
    answers = faulty.compact_many(requests)
    # A second answer to a request already answered is dropped, not charged to another one.
    assert echoed(answers[0])[0]["content"] == "request 0"
    assert "which no request in flight has" in answers[1].reason
    assert "malformed JSON" in answers[2].reason
    assert echoed(answers[3])[0]["content"] == "request 3"


def test_an_answer_that_breaks_the_schema_fails_its_own_request_in_a_batch(
    faulty: CommandBackend,
) -> None:
    # Requests go out unchecked (valid by construction); answers are still checked, each.
    answers = faulty.compact_many([said("echo", 0), said("schema", 1), said("echo", 2)])
    assert answers[1].kind == "errored"
    assert "protocol-compact-response" in answers[1].reason
    assert "'robot'" in answers[1].reason
    assert [echoed(answers[i])[0]["content"] for i in (0, 2)] == ["request 0", "request 2"]


def test_a_harness_writing_large_answers_cannot_deadlock_the_writer(
    faulty: CommandBackend,
) -> None:
    # Each request and its echo are larger than a pipe's buffer (1 MB, once widened): a writer
    # that sent every request before reading would block on a full stdin while the harness
    # blocks on a full stdout; the deadline would then fail every request.
    big = "x" * 1_200_000
    requests: list[tuple[View, dict[str, Any]]] = [
        (
            "messages",
            {
                "messages": [
                    {"role": "user", "content": big + str(i)},
                    {"role": "user", "content": "echo"},
                ]
            },
        )
        for i in range(12)
    ]
    answers = faulty.compact_many(requests)
    assert [echoed(a)[0]["content"] for a in answers] == [big + str(i) for i in range(12)]


@pytest.fixture(scope="module")
def python_harness() -> Iterator[CommandBackend]:
    with CommandBackend([sys.executable, str(PYTHON_HARNESS)]) as backend:
        yield backend


@pytest.fixture(scope="module")
def worker() -> Iterator[CommandBackend]:
    backend = isolated_backend(f"{PYTHON_HARNESS}:compact_messages", "messages", Calls())
    with backend:
        yield backend


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(message_histories(), min_size=2, max_size=12))
def test_pipelined_answers_are_the_one_at_a_time_answers(
    python_harness: CommandBackend, worker: CommandBackend, histories: list[Projected[Any]]
) -> None:
    requests: list[tuple[Any, dict[str, Any]]] = [
        ("messages", {"messages": dump_messages(h.view.messages)}) for h in histories
    ]
    for backend in (python_harness, worker):
        one_by_one = [backend.compact(view, payload) for view, payload in requests]
        assert backend.compact_many(requests) == one_by_one


def test_runs_answered_ahead_send_each_request_once_and_see_their_own_answers(
    tmp_path: Path,
) -> None:
    log = tmp_path / "seen.log"
    argv = [sys.executable, str(REVERSES), "--log", str(log)]
    requests = [said("echo", index) for index in range(9)]
    with CommandBackend(argv) as backend:
        runs = [partial(backend.compact, *request) for request in requests]
        with answered_ahead(backend, runs):
            answers = [run() for run in runs]
        # Outside, calls go to the harness again.
        after = backend.compact(*requests[0])
    assert [echoed(a) for a in answers] == [p["messages"] for _, p in requests]
    assert echoed(after) == requests[0][1]["messages"]
    seen = log.read_text().split("\n")[:-1]
    assert len(seen) == len(requests) + 1
    assert len({line.split()[0] for line in seen}) == 1


def _entry(folder: Path, index: int, target: str, text: str) -> Path:
    entry = {
        "corpusVersion": 1,
        "target": target,
        "view": "messages",
        "invariant": CALL_ANSWERED,
        "seed": 1,
        "toolkitVersion": "0.1.0",
        "round": 1,
        "because": "it did not answer",
        "facts": {"budget": None, "constraints": [], "goal": f"entry {index}"},
        "input": {
            "messages": [
                {"role": "user", "content": f"entry {index}"},
                {"role": "user", "content": text},
            ]
        },
    }
    path = folder / f"entry-{index:02d}.json"
    path.write_text(json.dumps(entry), encoding="utf-8")
    return path


def test_a_corpus_replayed_over_one_harness_gives_each_entry_its_own_verdict(
    tmp_path: Path,
) -> None:
    target = f"cmd:{sys.executable} {FAULTY}"
    texts = ["echo", "exit", "echo", "raise", "echo", "kill", "echo"]
    paths = [_entry(tmp_path, index, target, text) for index, text in enumerate(texts)]
    together = replay(tmp_path)
    alone = [replay_entry(path) for path in paths]
    assert [r.verdict for r in together] == [r.verdict for r in alone]
    assert [r.verdict for r in together] == [
        "fixed",
        "still failing",
        "fixed",
        "still failing",
        "fixed",
        "still failing",
        "fixed",
    ]
    assert [r.path for r in together] == paths


def _seen(log: Path) -> list[tuple[str, str]]:
    """(process, input digest) of every compact request the reversing harness read."""
    return [(line.split()[0], line.split()[2]) for line in log.read_text().splitlines()]


def test_the_re_runs_of_a_failure_are_sent_once_each_and_agree(tmp_path: Path) -> None:
    log = tmp_path / "seen.log"
    target = f"cmd:{sys.executable} {REVERSES} --keep-last 3 --log {log}"
    report = compactcheck.fuzz(
        target, invariants=["user_turn_present"], max_examples=20, seed=0, corpus_dir=tmp_path
    )
    [result] = [r for r in report.targets[0].results if r.invariant == "user_turn_present"]
    assert result.verdict == "violation"
    assert result.counterexample is not None
    assert result.counterexample.reproduced == "deterministic"
    seen = _seen(log)
    last = seen[-1]
    trailing = len(seen) - max(i for i, s in enumerate(seen) if s != last) - 1
    # Three re-runs of the shrunk witness (after, at most, the hunt's own last replay of it):
    # each sent once, in one batch; answers not used would have been asked for again.
    assert trailing in (3, 4)


def test_whole_transcripts_are_sent_ahead_once_each(tmp_path: Path) -> None:
    log = tmp_path / "seen.log"
    transcripts = load_transcripts(SHIPPED)
    target = f"cmd:{sys.executable} {REVERSES} --log {log}"
    compactcheck.fuzz(target, transcripts=SHIPPED, max_examples=5, seed=0, corpus_dir=tmp_path)
    seen = _seen(log)
    wholes = {
        hashlib.sha256(json.dumps({"messages": dump_messages(t.messages)}).encode()).hexdigest()[
            :16
        ]
        for t in transcripts
    }
    # Several shipped transcripts are one conversation in different formats, read alike.
    count = len(transcripts)
    assert {digest for _, digest in seen[:count]} == wholes
    # Each pass of the run sends the whole transcripts first, in one batch, once each: a run
    # that asked for them again, one at a time, would make a block twice as long.
    blocks = [len(list(block)) for whole, block in groupby(d in wholes for _, d in seen) if whole]
    assert blocks
    assert set(blocks) == {count}
