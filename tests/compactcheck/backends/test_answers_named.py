"""What a ``py:`` compactor answers is read alike in this process and in the isolated worker: a
session decline is a decline, a wrong kind of answer is named in the user's terms at the user's
file, and so is a signature that cannot take the one argument a view hands it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compactcheck.base.backend import Answer
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.harness import backend_session_compactor
from compactcheck.invariants import View
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import TargetError, resolve

COMPACTORS = """
import functools


def forgets_return(history):
    kept = history  # noqa: F841 - the return it forgets


def returns_json_text(history):
    import json
    return json.dumps(history)


def returns_chat_request(messages):
    return {"messages": messages[:1] + messages[-2:]}


class Message:
    def __init__(self, role, content):
        self.role, self.content = role, content


def returns_objects(messages):
    return [Message(m["role"], m["content"]) for m in messages]


def stamps_messages(messages):
    import datetime
    return [dict(m, at=datetime.datetime(2026, 1, 1)) for m in messages]


def declines(payload):
    return {"skipped": "no compactable history yet: no balanced span before the newest unit"}


def takes_nothing():
    return []


def takes_two(messages, budget):
    return messages


@functools.wraps(forgets_return)
def lies_about_its_signature():
    return []
"""

CHAT = {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}
ANTHROPIC = {
    "format": "anthropic",
    "request": {"system": "be brief", "messages": [{"role": "user", "content": "hi"}]},
}
RESPONSES = {"format": "openai-responses", "request": {"input": []}}
GEMINI = {"format": "gemini", "request": {"contents": []}}
SNAPSHOT: dict[str, Any] = {"compactorInput": {"events": []}}
SESSION: dict[str, Any] = {"log": [], "mode": "manual"}

PATHS = pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "worker"])


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(COMPACTORS, encoding="utf-8")
    return path


def _answer(
    source: Path, name: str, view: View, payload: dict[str, Any], in_process: bool
) -> Answer:
    target = resolve(
        f"py:{source}:{name}", view=view, calls=Calls(timeout=30.0, in_process=in_process)
    )
    try:
        assert target.backend is not None
        return target.backend.compact(view, payload)
    finally:
        target.close()


def _line(name: str) -> int:
    """The line ``name`` is defined at in the compactors' file."""
    lines = COMPACTORS.splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {name}("))


@PATHS
@pytest.mark.parametrize(
    ("name", "view", "payload", "said"),
    [
        (
            "forgets_return",
            "messages",
            CHAT,
            "forgets_return returned None (a missing return?); it must return a list of chat "
            "messages (or a chat completions request holding them as 'messages')",
        ),
        (
            "returns_json_text",
            "messages",
            CHAT,
            "returns_json_text returned JSON text (a str), not data; it must return a list of "
            "chat messages",
        ),
        (
            "forgets_return",
            "messages",
            ANTHROPIC,
            "forgets_return returned None (a missing return?); it must return the anthropic "
            "request it was handed (a dict) or its history list ('messages')",
        ),
        (
            "returns_json_text",
            "messages",
            RESPONSES,
            "returns_json_text returned JSON text (a str), not data; it must return the "
            "openai-responses request it was handed (a dict) or its history list ('input')",
        ),
        (
            "forgets_return",
            "messages",
            GEMINI,
            "forgets_return returned None (a missing return?); it must return the gemini "
            "request it was handed (a dict) or its history list ('contents')",
        ),
        (
            "forgets_return",
            "snapshot",
            SNAPSHOT,
            "forgets_return returned None (a missing return?); it must return a snapshot draft",
        ),
        (
            "forgets_return",
            "session",
            SESSION,
            "forgets_return returned None (a missing return?); it must return {'appended': "
            "[events]} (or {'skipped': reason} to decline)",
        ),
    ],
)
def test_a_wrong_kind_of_answer_is_named_at_the_users_file(
    source: Path, name: str, view: View, payload: dict[str, Any], said: str, in_process: bool
) -> None:
    answer = _answer(source, name, view, payload, in_process)
    assert answer.kind == "errored"
    assert answer.reason.startswith(said)
    assert answer.reason.endswith(f"(at {source}:{_line(name)})")
    assert "protocol" not in answer.reason


def test_both_paths_name_a_wrong_answer_in_the_same_words(source: Path) -> None:
    cases: list[tuple[View, dict[str, Any]]] = [
        ("messages", CHAT),
        ("snapshot", SNAPSHOT),
        ("session", SESSION),
    ]
    for view, payload in cases:
        assert (
            _answer(source, "returns_json_text", view, payload, True).reason
            == _answer(source, "returns_json_text", view, payload, False).reason
        )


@PATHS
def test_a_chat_completions_request_is_taken_for_its_messages(
    source: Path, in_process: bool
) -> None:
    answer = _answer(source, "returns_chat_request", "messages", CHAT, in_process)
    assert answer.kind == "result"
    assert answer.result == {"messages": CHAT["messages"][:1] + CHAT["messages"][-2:]}


@PATHS
def test_a_session_decline_is_a_decline_on_both_paths(source: Path, in_process: bool) -> None:
    target = resolve(
        f"py:{source}:declines", view="session", calls=Calls(timeout=30.0, in_process=in_process)
    )
    try:
        assert target.backend is not None
        assert backend_session_compactor(target.backend)(SESSION) == {
            "skipped": "no compactable history yet: no balanced span before the newest unit"
        }
    finally:
        target.close()


@PATHS
def test_a_session_compactor_that_declines_passes_call_answered(
    source: Path, tmp_path: Path, in_process: bool
) -> None:
    target = resolve(
        f"py:{source}:declines", view="session", calls=Calls(timeout=30.0, in_process=in_process)
    )
    config = RunConfig(
        seed=0, max_examples=5, max_total_examples=5, profile="ci", corpus_dir=tmp_path / "c"
    )
    try:
        report = run_target(target, "session", config)
    finally:
        target.close()
    assert report.calls == {"declined": 5}
    answered = next(r for r in report.results if r.invariant == "call_answered")
    assert answered.verdict != "violation"


@PATHS
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("takes_nothing", "too many positional arguments"),
        ("takes_two", "missing a required argument: 'budget'"),
    ],
)
def test_a_wrong_signature_is_named_at_the_users_file(
    source: Path, name: str, said: str, in_process: bool
) -> None:
    with pytest.raises(TargetError) as raised:
        resolve(f"py:{source}:{name}", calls=Calls(timeout=30.0, in_process=in_process))
    message = str(raised.value)
    assert f"(at {source}:{_line(name)})" in message
    assert said in message
    assert "isolated.py" not in message


@PATHS
def test_a_signature_that_fails_only_when_called_is_placed_at_the_users_file(
    source: Path, in_process: bool
) -> None:
    # functools.wraps lends it the signature of forgets_return; the call itself raises TypeError
    # before its first line runs.
    answer = _answer(source, "lies_about_its_signature", "messages", CHAT, in_process)
    assert answer.kind == "errored"
    assert answer.reason.startswith("TypeError:")
    # A decorated function's code starts at its decorator.
    line = _line("lies_about_its_signature") - 1
    assert answer.reason.endswith(f"(at {source}:{line})")


@PATHS
def test_a_wrong_answer_on_every_call_is_said_once_as_the_call_laws_violation(
    source: Path, tmp_path: Path, in_process: bool
) -> None:
    target = resolve(
        f"py:{source}:forgets_return", calls=Calls(timeout=30.0, in_process=in_process)
    )
    config = RunConfig(
        seed=0, max_examples=5, max_total_examples=5, profile="ci", corpus_dir=tmp_path / "c"
    )
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    answered = next(r for r in report.results if r.invariant == "call_answered")
    assert answered.verdict == "violation"
    assert answered.counterexample is not None
    because = answered.because or ""
    assert "forgets_return returned None" in because
    assert f"(at {source}:{_line('forgets_return')})" in because
    others = [
        r for r in report.results if r.invariant != "call_answered" and r.verdict == "errored"
    ]
    assert others
    for result in others:
        assert "returned None" not in (result.because or "")
        assert "(see call_answered)" in (result.because or "")


@PATHS
def test_framework_message_objects_are_named_as_such(source: Path, in_process: bool) -> None:
    answer = _answer(source, "returns_objects", "messages", CHAT, in_process)
    assert answer.kind == "errored"
    assert answer.reason.startswith(
        "returns_objects returned a list holding a Message at index 0; it must return chat "
        "messages as dicts of JSON data"
    )
    assert answer.reason.endswith(f"(at {source}:{_line('returns_objects')})")


ADAPTER = """
from compactcheck.backends.inprocess import CallableBackend


def forgets_return(history):
    kept = history


adapter = CallableBackend(forgets_return, name="forgets", views=("messages",))
"""


@PATHS
def test_an_adapter_objects_wrong_answer_stays_one_through_the_worker(
    tmp_path: Path, in_process: bool
) -> None:
    path = tmp_path / "adapter.py"
    path.write_text(ADAPTER, encoding="utf-8")
    target = resolve(f"py:{path}:adapter", calls=Calls(timeout=30.0, in_process=in_process))
    try:
        assert target.backend is not None
        answer = target.backend.compact("messages", CHAT)
    finally:
        target.close()
    assert answer.kind == "errored"
    assert answer.wrong_answer
    assert answer.reason.startswith("forgets_return returned None")


@PATHS
def test_an_answer_that_is_not_json_data_is_named_alike_and_ends_no_run(
    source: Path, tmp_path: Path, in_process: bool
) -> None:
    answer = _answer(source, "stamps_messages", "messages", CHAT, in_process)
    assert answer.kind == "errored"
    assert answer.reason == (
        "the answer is not JSON data: TypeError: Object of type datetime is not JSON serializable"
    )
    # In this process the datetime was taken on, and writing its corpus entry ended the run.
    target = resolve(
        f"py:{source}:stamps_messages", calls=Calls(timeout=30.0, in_process=in_process)
    )
    config = RunConfig(
        seed=0, max_examples=3, max_total_examples=3, profile="ci", corpus_dir=tmp_path / "c"
    )
    try:
        report = run_target(target, "messages", config)
    finally:
        target.close()
    answered = next(r for r in report.results if r.invariant == "call_answered")
    assert answered.verdict == "violation"
