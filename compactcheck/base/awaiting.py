"""Awaiting what a compactor answers: an ``async def`` compactor is called like any other, and the
awaitable it returns is run to completion here, the one place that knows how.

Standard library only, so that a worker starts quickly; asyncio (a fifth of a worker's start) is
imported by the first awaitable, so a plain compactor never pays for it.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import concurrent.futures

# How long a loop may take to act on a cancellation before it counts as blocked (by a coroutine
# that never yields: time.sleep, a busy loop) and is left to its thread for a new one.
RESPONSIVE = 1.0


def is_async(function: Any) -> bool:
    """Whether calling ``function`` gives a coroutine: an ``async def`` function (a method or
    partial of one too), or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(function) or (
        callable(function) and inspect.iscoroutinefunction(function.__call__)
    )


async def settled(value: Any) -> Any:
    """``value`` awaited when it is awaitable, else ``value`` itself (for a caller in a loop)."""
    return await value if inspect.isawaitable(value) else value


def discarded(value: Any) -> None:
    """Close ``value`` when it is a coroutine that will never be awaited, so that Python does not
    warn of it ("coroutine ... was never awaited") far from the cause."""
    if inspect.iscoroutine(value):
        value.close()


async def _outcome(awaitable: Awaitable[Any]) -> tuple[Any, BaseException | None]:
    """What ``awaitable`` gives or raises. Raised out of a task, a SystemExit or
    KeyboardInterrupt would stop the loop itself; here it is the compactor's, kept for the caller
    as any other error."""
    try:
        return await awaitable, None
    except BaseException as error:
        return None, error


class _Loop:
    """An event loop running in a daemon thread of its own."""

    def __init__(self) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self._run, name="compactcheck-event-loop", daemon=True
        )
        self.thread.start()

    def _run(self) -> None:
        import asyncio

        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            # Stopped: let what is still running (a call given up on) unwind, as asyncio.run does.
            tasks = asyncio.all_tasks(self.loop)
            for task in tasks:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()

    def responsive(self, within: float) -> bool:
        """Whether the loop runs a callback within ``within`` seconds."""
        ran = threading.Event()
        self.loop.call_soon_threadsafe(ran.set)
        return ran.wait(within)

    def stop(self, within: float) -> None:
        """Stop the loop, waiting up to ``within`` seconds for it to wind down."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(within)


class Awaiter:
    """Calls a compactor, and awaits what it answers when that is awaitable, on one event loop
    kept for the awaiter's life.

    One loop rather than one per call: a client made on a compactor's first call (an HTTP client,
    a model's session) is bound to the loop it was made on, and fails on another. The loop runs
    in a daemon thread of its own, started on the first awaitable (a plain compactor never
    starts one), so that a calling thread waiting for it can be abandoned at a timeout as for a
    plain function, and a caller whose own loop is running (a notebook, an async test) can call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: _Loop | None = None
        self._running: set[concurrent.futures.Future[tuple[Any, BaseException | None]]] = set()

    def answer(self, function: Callable[..., Any], *arguments: Any) -> Any:
        """What ``function(*arguments)`` answers, run to completion when it is awaitable; what
        either raises is raised here."""
        value = function(*arguments)
        if not inspect.isawaitable(value):
            return value
        import asyncio

        future = asyncio.run_coroutine_threadsafe(_outcome(value), self._started().loop)
        with self._lock:
            self._running.add(future)
        try:
            result, error = future.result()
        finally:
            with self._lock:
                self._running.discard(future)
        if error is not None:
            raise error
        return result

    def _started(self) -> _Loop:
        with self._lock:
            if self._loop is None:
                self._loop = _Loop()
            return self._loop

    def cancel(self) -> None:
        """Cancel the awaited calls still running (their caller gave up on them at a timeout).

        A loop that does not act on it within ``RESPONSIVE`` seconds is blocked by a coroutine
        that never yields: it is left to its thread, and the next awaitable gets a new loop.
        """
        with self._lock:
            running, self._running = self._running, set()
            current = self._loop
        for future in running:
            future.cancel()
        if current is not None and not current.responsive(RESPONSIVE):
            with self._lock:
                if self._loop is current:
                    self._loop = None
            current.loop.call_soon_threadsafe(current.loop.stop)

    def close(self) -> None:
        """Stop the loop, if one was started (calls still running are cancelled)."""
        with self._lock:
            current, self._loop = self._loop, None
        if current is not None:
            current.stop(RESPONSIVE)
