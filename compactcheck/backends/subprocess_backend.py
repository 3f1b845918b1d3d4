"""A backend run as a subprocess speaking the JSON-lines protocol on its stdin and stdout.

The harness is started without a shell, answers a start handshake, then compact requests: one at
a time (``compact``), or a batch of independent ones pipelined over it (``compact_many``, see
``backends.pipeline``), which ``ahead`` uses to answer runs whose requests are known beforehand.
Every way a harness can misbehave (hang, crash, exit, write garbage, answer the wrong
request, answer too much, flood stderr) becomes an errored Answer for that call, never a hang or
an exception in the runner; only a harness that cannot be started at all raises.
"""

from __future__ import annotations

import contextlib
import itertools
import shlex
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self

from compactcheck.backends.answers import answer_of, request_key
from compactcheck.backends.harness_process import (
    DeadlineError,
    ExitedError,
    Fork,
    HarnessStartError,
    OversizeError,
    StderrRing,
)
from compactcheck.backends.lines import compact_request, decode_line, parse_line, validate_answer
from compactcheck.backends.pipeline import DEFAULT_WINDOW, Pending, Window
from compactcheck.backends.protocol import (
    COMPACT_REQUESTS,
    OPAQUE_COMPACT_RESPONSE,
    CompactResponse,
    ProtocolError,
)
from compactcheck.backends.supervisor import Supervisor, short
from compactcheck.base.backend import Answer
from compactcheck.base.implementation import Implementation
from compactcheck.invariants import View, json_copy
from compactcheck.options import DEFAULT_TIMEOUT

DEFAULT_MAX_RESTARTS = 3
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
DEFAULT_STDERR_BYTES = 64 * 1024
# What a run noted ahead answers (never shown: a noted run's outcome is thrown away).
_NOTED = "compactcheck noted this request to send it ahead; its answer comes with the batch"

Request = tuple[View, dict[str, Any]]


class CommandBackend:
    """A compactor in any language, run as a protocol v1 harness subprocess."""

    # The harness is handed each request as a line of JSON, never the caller's objects (see
    # ``targets.backend.handed``): a request noted for later is copied here.
    sends_copies: ClassVar[bool] = True

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        start_timeout: float | None = None,
        stderr_bytes: int = DEFAULT_STDERR_BYTES,
        role: str = "harness",
        window: int = DEFAULT_WINDOW,
        opaque_results: bool = False,
        fork: Fork | None = None,
    ) -> None:
        if isinstance(argv, str) or not argv:
            raise HarnessStartError(
                f"expected the harness command as a non-empty argument list; found {argv!r}"
            )
        self._role = role
        # compactcheck's own Python worker: its results are read by the view's driver, as an
        # in-process compactor's are, not judged by the protocol's schema first (so that both
        # paths judge one answer alike).
        self._opaque_results = opaque_results
        # The input as the compactor left it, when it says it changed it in place (the
        # optional ``inputAfter`` of an answer); None otherwise.
        self.last_input: Any = None
        self._timeout = timeout
        self._max_answer_bytes = max_answer_bytes
        self._ring = StderrRing(stderr_bytes)
        self._seq = itertools.count(1)
        # Requests in flight at once in compact_many; the harness may ask for fewer.
        self._window = window
        # While a run is noted (``noting``): the requests it made; while answers are served
        # ahead (``ahead``): the answers waiting, by request.
        self._noted: list[Request] | None = None
        self._ahead: dict[str, deque[Answer]] = {}
        self._life = Supervisor(
            argv,
            role=role,
            cwd=cwd,
            env=env,
            ring=self._ring,
            start_timeout=start_timeout if start_timeout is not None else max(timeout, 10.0),
            max_restarts=max_restarts,
            max_answer_bytes=max_answer_bytes,
            fork=fork,
        )

    @classmethod
    def from_command_line(cls, command_line: str, **options: Any) -> CommandBackend:
        """A backend for a command line, split the way a POSIX shell would but never run by one."""
        try:
            argv = shlex.split(command_line)
        except ValueError as error:
            raise HarnessStartError(
                f"cannot split the harness command line {command_line!r}: {error}"
            ) from None
        return cls(argv, **options)

    @property
    def implementation(self) -> Implementation:
        """What the harness said about itself in its handshake."""
        return self._life.implementation

    @property
    def pid(self) -> int | None:
        """The running harness's process id (None when none runs)."""
        process = self._life.process
        return process.pid if process is not None else None

    @property
    def restarts(self) -> int:
        """How many times a harness that crashed or exited on its own was restarted."""
        return self._life.restarts

    def stderr_tail(self) -> str:
        """The last bytes the harness wrote to stderr, across restarts."""
        return self._ring.text()

    @property
    def window(self) -> int:
        """How many requests compact_many keeps in flight (the harness's maxInFlight caps it)."""
        return min(self._window, self._life.max_in_flight or self._window)

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """Answer one compact request; every harness fault becomes an errored Answer."""
        if self._noted is not None:
            self._noted.append((view, json_copy(payload)))
            return Answer.error(_NOTED)
        if self._ahead:
            served = self._served(view, payload)
            if served is not None:
                self.last_input = served.input_after
                return served
        seq = next(self._seq)
        line = compact_request(view, seq, payload)
        self.last_input = None
        process = self._life.running()
        if process is None:
            return Answer.error(f"{self._role} unavailable: {self._life.unavailable}")
        process.drop_stale_output()
        try:
            raw = process.exchange(line, time.monotonic() + self._timeout)
        except DeadlineError:
            process.kill()
            return self._timed_out(seq)
        except ExitedError:
            return Answer.error(
                f"{self._role} {self._life.ended(process)} while answering seq {seq}"
            )
        except OversizeError as oversize:
            if not oversize.resynced:
                process.kill()
            return self._oversize(seq)
        try:
            data, parsed = decode_line(raw, self._answer_model(view))
        except ProtocolError as error:
            return Answer.error(f"{self._role} answer to seq {seq}: {error}")
        assert isinstance(parsed, CompactResponse)
        self._life.answered = True
        self.last_input = data.get("inputAfter")
        echoed = data["seq"]
        if type(echoed) is not int or echoed != seq:
            return Answer.error(
                f"{self._role} answered with seq {short(echoed)} to the request with seq {seq}; "
                "an answer must echo its request's seq unchanged"
            )
        return answer_of(data, parsed)

    def compact_many(self, requests: Sequence[Request]) -> list[Answer]:
        """Answer a batch of independent requests, pipelined: up to ``window`` in flight over
        the harness, answers matched by seq, in any order.

        Each answer is the one ``compact`` would give: a harness that hangs or dies fails the
        request it was on (the oldest in flight) and is restarted, and the requests behind it
        are sent again to the new process, so that none is lost. ``last_input`` is not set;
        each answer carries its own ``input_after``.
        """
        if self._noted is not None or self._ahead:
            return [self.compact(view, payload) for view, payload in requests]
        self.last_input = None
        views = [view for view, _ in requests]
        answers: list[Answer | None] = [None] * len(requests)
        queue: deque[Pending] = deque()
        for index, (view, payload) in enumerate(requests):
            seq = next(self._seq)
            queue.append(Pending(index, seq, partial(compact_request, view, seq, payload)))
        while queue:
            process = self._life.running()
            if process is None:
                for request in queue:
                    answers[request.index] = Answer.error(
                        f"{self._role} unavailable: {self._life.unavailable}"
                    )
                break
            process.drop_stale_output()
            try:
                self._pump(Window(process, self.window, self._timeout), queue, views, answers)
            except BaseException:
                # A Ctrl-C mid-batch: answers still in flight must not meet the next request.
                process.kill()
                raise
        assert all(answer is not None for answer in answers)
        return [answer for answer in answers if answer is not None]

    @contextlib.contextmanager
    def noting(self) -> Iterator[list[Request]]:
        """Within: compact sends nothing and answers errored, noting each request instead, so
        that the requests of a run are known before it is run for real."""
        noted: list[Request] = []
        self._noted = noted
        try:
            yield noted
        finally:
            self._noted = None

    @contextlib.contextmanager
    def ahead(self, requests: Sequence[Request]) -> Iterator[None]:
        """Send ``requests`` now, pipelined; within, a compact call asking one of them takes its
        answer instead of a round trip (any other call goes to the harness as usual)."""
        answers = self.compact_many(requests)
        for (view, payload), answer in zip(requests, answers, strict=True):
            key = request_key(view, payload)
            if key is not None:
                self._ahead.setdefault(key, deque()).append(answer)
        try:
            yield
        finally:
            self._ahead.clear()

    def _served(self, view: View, payload: dict[str, Any]) -> Answer | None:
        key = request_key(view, payload)
        waiting = self._ahead.get(key) if key is not None else None
        if not waiting:
            return None
        answer = waiting.popleft()
        if not waiting:
            del self._ahead[key]  # type: ignore[arg-type]
        return answer

    def _pump(
        self,
        window: Window,
        queue: deque[Pending],
        views: list[View],
        answers: list[Answer | None],
    ) -> None:
        """Run the batch over one process until it is done or the process is finished."""
        process = window.process
        # Requests this process resolved; the seqs it answered (a second answer is dropped).
        resolved = 0
        done: set[int] = set()

        def answered(raw: bytes) -> bool:
            nonlocal resolved
            matched = self._match(window, raw, views, answers, done)
            resolved += matched
            return matched

        while True:
            try:
                window.run(queue, answered)
                return
            except DeadlineError:
                process.kill()
                left = window.abandon()
                answers[left[0].index] = self._timed_out(left[0].seq)
                queue.extendleft(reversed(left[1:]))
                return
            except ExitedError:
                left = window.abandon()
                if not left and resolved == 0 and queue:
                    # It died before taking any request: the next one is where it died.
                    left = [queue.popleft()]
                if left:
                    reason = f"{self._life.ended(process)} while answering seq {left[0].seq}"
                    answers[left[0].index] = Answer.error(f"{self._role} {reason}")
                    queue.extendleft(reversed(left[1:]))
                return
            except OversizeError as oversize:
                oldest = window.oldest()
                if oldest is not None:
                    window.resolve(oldest.seq)
                    answers[oldest.index] = self._oversize(oldest.seq)
                if not oversize.resynced:
                    process.kill()
                    queue.extendleft(reversed(window.abandon()))
                    return

    def _match(
        self,
        window: Window,
        raw: bytes,
        views: list[View],
        answers: list[Answer | None],
        answered: set[int],
    ) -> bool:
        """Give one answer line to the request in flight it belongs to (by seq), or charge it
        to the oldest when it belongs to none; whether it answered a request."""
        oldest = window.oldest()
        if oldest is None:
            # A line no request asked for while nothing waits: dropped, as compact drops it.
            return False
        try:
            data = parse_line(raw)
        except ProtocolError as error:
            window.resolve(oldest.seq)
            answers[oldest.index] = Answer.error(
                f"{self._role} answer to seq {oldest.seq}: {error}"
            )
            return True
        echoed = data.get("seq")
        if type(echoed) is int and echoed in answered:
            # A second answer to a request already answered: dropped, as compact drops it.
            return False
        if type(echoed) is not int or echoed not in window.flight:
            window.resolve(oldest.seq)
            answers[oldest.index] = Answer.error(
                f"{self._role} answered with seq {short(echoed)}, which no request in flight "
                f"has (the oldest waiting is seq {oldest.seq}); an answer must echo its "
                "request's seq unchanged"
            )
            return True
        request = window.resolve(echoed)
        answered.add(echoed)
        try:
            parsed = validate_answer(data, self._answer_model(views[request.index]))
        except ProtocolError as error:
            answers[request.index] = Answer.error(f"{self._role} answer to seq {echoed}: {error}")
            return True
        assert isinstance(parsed, CompactResponse)
        self._life.answered = True
        answers[request.index] = answer_of(data, parsed)
        return True

    def _answer_model(self, view: View) -> type[CompactResponse[Any]]:
        """The model a compact answer of ``view`` must match."""
        model = (
            OPAQUE_COMPACT_RESPONSE if self._opaque_results else COMPACT_REQUESTS[view].answer_model
        )
        assert model is not None
        assert issubclass(model, CompactResponse)
        return model

    def _timed_out(self, seq: int) -> Answer:
        return Answer.error(
            f"{self._role} did not answer seq {seq} within {self._timeout:g} s; it was killed "
            "and will be restarted for the next call",
            timed_out=True,
        )

    def _oversize(self, seq: int) -> Answer:
        return Answer.error(
            f"{self._role} answer to seq {seq} exceeds the {self._max_answer_bytes}-byte cap "
            "(max_answer_bytes); raise the cap or return less"
        )

    def close(self) -> None:
        """Send stop, give the harness a moment to exit, then kill it."""
        self._life.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
