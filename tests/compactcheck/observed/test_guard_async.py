"""The guard of an ``async def`` compactor: an async function that judges the awaited answer as the
plain guard does, counts exactly however many calls overlap, and leaves no coroutine unawaited."""

from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import random
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest

import compactcheck
from compactcheck.observed.guard import GuardEvent
from compactcheck.reference_engine.messages import reference_messages
from tests.compactcheck.observed.test_guard import HISTORY, Messages, orphaning

keep = reference_messages(max_messages=6)


async def faithful(messages: Messages) -> Messages:
    await asyncio.sleep(0)
    return keep(messages)


async def broken(messages: Messages) -> Messages:
    await asyncio.sleep(0)
    return orphaning(messages)


@pytest.fixture(autouse=True)
def no_coroutine_left_unawaited() -> Iterator[None]:
    """Fail a test after which Python warns that a coroutine was never awaited."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_the_guard_of_an_async_compactor_is_an_async_function() -> None:
    guarded = compactcheck.guard(faithful)
    assert inspect.iscoroutinefunction(guarded)
    assert getattr(guarded, "__name__", None) == "faithful"
    # Before: the wrapper judged the coroutine ("PairError ... Input should be a valid tuple").
    assert asyncio.run(guarded(HISTORY)) == keep(HISTORY)
    assert (guarded.stats.calls, guarded.stats.checked, guarded.stats.violated) == (1, 1, 0)


def test_an_object_with_an_async_call_is_guarded_as_async() -> None:
    class Compactor:
        async def __call__(self, messages: Messages) -> Messages:
            return keep(messages)

    guarded = compactcheck.guard(Compactor())
    assert inspect.iscoroutinefunction(guarded)
    assert asyncio.run(guarded(HISTORY)) == keep(HISTORY)


def test_raise_names_the_broken_law_of_the_awaited_answer() -> None:
    guarded = compactcheck.guard(broken)
    with pytest.raises(compactcheck.ViolationError, match="tool_pairing: tool result call_7"):
        asyncio.run(guarded(HISTORY))
    assert guarded.stats.violated == 1


def test_log_returns_the_awaited_answer(caplog: pytest.LogCaptureFixture) -> None:
    guarded = compactcheck.guard(broken, on_violation="log")
    with caplog.at_level(logging.WARNING, logger="compactcheck.guard"):
        assert asyncio.run(guarded(HISTORY)) == orphaning(HISTORY)
    assert "compaction broke tool_pairing" in caplog.text


def test_return_input_hands_the_history_back() -> None:
    guarded = compactcheck.guard(broken, on_violation="return_input")
    assert asyncio.run(guarded(HISTORY)) is HISTORY


def _plain_choice(event: GuardEvent) -> Any:
    return [event.before[0], event.before[-1]]


async def _async_choice(event: GuardEvent) -> Any:
    await asyncio.sleep(0)
    return [event.before[0], event.before[-1]]


async def _async_none(event: GuardEvent) -> Any:
    return None


@pytest.mark.parametrize(
    ("choice", "answer"),
    [
        (_plain_choice, [HISTORY[0], HISTORY[-1]]),
        (_async_choice, [HISTORY[0], HISTORY[-1]]),
        (_async_none, orphaning(HISTORY)),
    ],
)
def test_a_callable_on_violation_plain_or_async_chooses_the_answer(
    choice: Callable[[GuardEvent], Any], answer: Messages
) -> None:
    guarded = compactcheck.guard(broken, on_violation=choice)
    assert asyncio.run(guarded(HISTORY)) == answer


def test_the_counts_are_exact_over_many_overlapping_calls_in_several_threads() -> None:
    # Calls of one guard overlap within each thread's loop (gather) and across threads.
    chosen: list[int] = []
    lock = threading.Lock()

    async def breaks_slowly(messages: Messages) -> Messages:
        await asyncio.sleep(random.random() / 1000)
        return orphaning(messages)

    async def counted(event: GuardEvent) -> None:
        await asyncio.sleep(0)
        with lock:
            chosen.append(1)

    guarded = compactcheck.guard(breaks_slowly, on_violation=counted, sample=0.5, seed=7)

    async def many() -> None:
        answers = await asyncio.gather(*(guarded(HISTORY) for _ in range(50)))
        assert all(answer == orphaning(HISTORY) for answer in answers)

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    stats = guarded.stats
    assert stats.calls == 200
    # Every judged call broke the law, and each was handed to on_violation once.
    assert stats.checked == stats.violated == len(chosen)
    assert 0 < stats.checked < 200


def test_a_plain_function_that_returns_a_coroutine_is_refused_in_one_line() -> None:
    guarded = compactcheck.guard(lambda messages: faithful(messages))
    with pytest.raises(compactcheck.CompactcheckError) as raised:
        guarded(HISTORY)
    message = str(raised.value)
    assert "returned an awaitable to a plain guard; define it with async def" in message
    assert "\n" not in message
    assert guarded.stats.calls == 0


def test_an_async_on_violation_needs_an_async_compactor() -> None:
    with pytest.raises(compactcheck.CompactcheckError, match="on_violation is async but"):
        compactcheck.guard(orphaning, on_violation=_async_choice)


def test_async_facts_are_refused_in_one_line() -> None:
    async def facts(messages: Messages) -> dict[str, Any]:
        return {}

    with pytest.raises(compactcheck.CompactcheckError, match="facts is an async function"):
        compactcheck.guard(faithful, facts=cast(Any, facts))


def test_check_of_an_unawaited_answer_says_to_await_it() -> None:
    # Before: "not valid openai-chat data: (top level): Input should be a valid tuple".
    with pytest.raises(compactcheck.CompactcheckError) as raised:
        compactcheck.check(HISTORY, faithful(HISTORY))
    assert str(raised.value) == (
        "check: after is an awaitable, not a history: await the compactor first "
        "(after = await compact(before))"
    )
