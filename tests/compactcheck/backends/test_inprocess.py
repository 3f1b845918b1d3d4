"""In-process backends: faults become answers, never crashes of the run."""

from __future__ import annotations

import time
from typing import Any

from compactcheck.backends.inprocess import CallableBackend

MESSAGES = [{"role": "user", "content": "hi"}]


def answer_of(function: Any, **options: Any) -> Any:
    backend = CallableBackend(function, name="f", views=("messages",), **options)
    return backend.compact("messages", {"messages": list(MESSAGES)})


def test_a_raise_is_an_errored_answer_naming_the_error() -> None:
    def boom(messages: Any) -> Any:
        raise ValueError("no luck")

    answer = answer_of(boom)
    assert answer.kind == "errored"
    assert "ValueError: no luck" in answer.reason


def test_a_hang_times_out() -> None:
    def slow(messages: Any) -> Any:
        time.sleep(5)
        return messages

    started = time.monotonic()
    answer = answer_of(slow, timeout=0.2)
    assert answer.kind == "errored"
    assert answer.timed_out
    assert time.monotonic() - started < 4


def test_an_enormous_answer_is_capped() -> None:
    def huge(messages: Any) -> Any:
        return [{"role": "user", "content": "x" * 2000}] * 100

    answer = answer_of(huge, max_answer_bytes=10_000)
    assert answer.kind == "errored"
    assert "over the cap of 10000" in answer.reason


def test_an_answer_that_is_not_json_is_errored() -> None:
    def circular(messages: Any) -> Any:
        loop: dict[str, Any] = {"role": "user"}
        loop["content"] = loop
        return [loop]

    answer = answer_of(circular)
    assert answer.kind == "errored"
    assert "not JSON data" in answer.reason


def test_an_unhandled_view_is_skipped() -> None:
    backend = CallableBackend(lambda m: m, name="f", views=("messages",))
    assert backend.compact("snapshot", {"compactorInput": {}}).kind == "skipped"
