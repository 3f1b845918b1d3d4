"""In-process backends: a plain Python callable behind the protocol's shapes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from compactcheck.backends.harness_process import SLICE
from compactcheck.base import interrupts
from compactcheck.base.awaiting import Awaiter
from compactcheck.base.backend import Answer
from compactcheck.base.calling import (
    FORMAT_NAMES,
    argument_of,
    described,
    result_of,
    waivers_of,
)
from compactcheck.base.implementation import Implementation
from compactcheck.invariants import View


class _TimedOutError(Exception):
    """The call gave no answer within the timeout."""


class _Call:
    """One call of the compactor in a daemon thread of its own.

    A thread that outlives its timeout cannot be killed; being a daemon, it does not hold the
    process open at exit (a pool's threads would: the interpreter joins them). Whatever the
    call raises, BaseException included, is kept for the caller: raised in this thread, a
    KeyboardInterrupt or SystemExit is the compactor's own, never the user's.
    """

    def __init__(self, awaiter: Awaiter, function: Callable[..., Any], *arguments: Any) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None
        thread = threading.Thread(
            target=self._run,
            args=(awaiter, function, arguments),
            name="compactcheck-call",
            daemon=True,
        )
        thread.start()

    def _run(
        self, awaiter: Awaiter, function: Callable[..., Any], arguments: tuple[Any, ...]
    ) -> None:
        try:
            self.value = awaiter.answer(function, *arguments)
        except BaseException as error:
            self.error = error
        finally:
            self.done.set()


def within(
    awaiter: Awaiter, timeout: float | None, function: Callable[..., Any], *arguments: Any
) -> Any:
    """What ``function(*arguments)`` answers (awaited when awaitable), or ``_TimedOutError``
    after ``timeout`` seconds (None: no limit, in this thread); what it raises is raised here."""
    if timeout is None:
        return awaiter.answer(function, *arguments)
    call = _Call(awaiter, function, *arguments)
    deadline = time.monotonic() + timeout
    while not call.done.is_set():
        # In slices, so that a Ctrl-C heard meanwhile is acted on within a fraction of a
        # second (the abandoned call finishes in its daemon thread).
        interrupts.check()
        left = deadline - time.monotonic()
        if left <= 0:
            # An awaited call is cancelled on its loop, not left running there.
            awaiter.cancel()
            raise _TimedOutError
        call.done.wait(min(left, SLICE))
    if call.error is not None:
        raise call.error
    return call.value


class CallableBackend:
    """A Python callable as a backend.

    messages: ``fn(list of chat dicts) -> list of chat dicts``; snapshot: ``fn(compactor input
    as JSON data) -> draft as JSON data``; session: ``fn({"log": [...], "mode": ...}) ->
    {"appended": [...]}``. The callable gets the very objects it may mutate, so that a
    compactor which edits its input in place is caught.
    """

    def __init__(
        self,
        function: Callable[[Any], Any],
        *,
        name: str,
        views: tuple[View, ...],
        version: str = "",
        timeout: float | None = None,
        max_answer_bytes: int = 16 * 1024 * 1024,
        memory_note: str = "",
    ) -> None:
        self.function = function
        self.timeout = timeout
        self.max_answer_bytes = max_answer_bytes
        # Appended to a MemoryError's description (the isolated worker names its limit there).
        self.memory_note = memory_note
        # A plain callable takes whichever format the run names (--format).
        self._implementation = Implementation(
            name=name,
            version=version,
            language="python",
            views=list(views),
            formats=list(FORMAT_NAMES),
            # What the compactor declares it does not promise (``compactcheck_waivers``).
            waivers=waivers_of(function),
        )
        self.last_input: Any = None
        # Runs what an async def compactor answers, on one loop for the backend's life.
        self.awaiter = Awaiter()

    @property
    def implementation(self) -> Implementation:
        """Name, version, language and views."""
        return self._implementation

    def _call(self, argument: Any) -> Any:
        return within(self.awaiter, self.timeout, self.function, argument)

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """Call the function with the view's input and wrap what it returns."""
        if view not in self._implementation.views:
            return Answer.skip(f"{self._implementation.name} does not handle the {view} view")
        argument = argument_of(view, payload)
        self.last_input = argument
        try:
            output = self._call(argument)
        except _TimedOutError:
            return Answer.error(f"no answer within {self.timeout} s", timed_out=True)
        except (Exception, SystemExit, KeyboardInterrupt) as error:
            # An interrupt is the user's when the run heard a signal (raised at a check, or a
            # second Ctrl-C); any other SystemExit or KeyboardInterrupt was the compactor's own:
            # a finding, not the end of the run.
            if isinstance(error, KeyboardInterrupt) and interrupts.heard():
                raise
            return Answer.error(
                described(error, memory_note=self.memory_note, function=self.function)
            )
        result, problem = result_of(
            view, output, self.max_answer_bytes, payload, function=self.function
        )
        return Answer.ok(result) if result is not None else Answer.error(problem, wrong_answer=True)

    def compact_many(self, requests: Sequence[tuple[View, dict[str, Any]]]) -> list[Answer]:
        """Answer a batch of requests: in-process there is no round trip to hide, so one by one."""
        return [self.compact(view, payload) for view, payload in requests]

    def stderr_tail(self) -> str:
        """In-process backends have no stderr of their own."""
        return ""

    def close(self) -> None:
        """Stop the event loop of an async compactor, if it started one."""
        self.awaiter.close()


class AwaitedAdapter:
    """A user's adapter object whose ``compact(view, payload)`` is async, as a backend: each
    answer run to completion on one loop for the backend's life, within the timeout, what it
    raises an errored answer (as in the isolated worker)."""

    def __init__(self, adapter: Any, *, timeout: float | None = None) -> None:
        self.adapter = adapter
        self.timeout = timeout
        self.awaiter = Awaiter()

    @property
    def implementation(self) -> Implementation:
        """The adapter's own."""
        implementation: Implementation = self.adapter.implementation
        return implementation

    def __getattr__(self, name: str) -> Any:
        # What the drivers read of a backend besides the protocol (last_input, model, ...).
        return getattr(self.adapter, name)

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """The adapter's answer, awaited."""
        try:
            answer: Answer = within(self.awaiter, self.timeout, self.adapter.compact, view, payload)
        except _TimedOutError:
            return Answer.error(f"no answer within {self.timeout} s", timed_out=True)
        except (Exception, SystemExit, KeyboardInterrupt) as error:
            if isinstance(error, KeyboardInterrupt) and interrupts.heard():
                raise
            return Answer.error(described(error))
        return answer

    def stderr_tail(self) -> str:
        """In-process backends have no stderr of their own."""
        return ""

    def close(self) -> None:
        """Close the adapter if it closes (awaited: on its loop), then stop the loop."""
        close = getattr(self.adapter, "close", None)
        try:
            if callable(close):
                self.awaiter.answer(close)
        finally:
            self.awaiter.close()
