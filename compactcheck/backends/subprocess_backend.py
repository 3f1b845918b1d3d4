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
import json
import shlex
import subprocess
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self

from compactcheck.backends.harness_process import (
    DeadlineError,
    ExitedError,
    Fork,
    HarnessProcess,
    HarnessStartError,
    OversizeError,
    StderrRing,
)
from compactcheck.backends.pipeline import DEFAULT_WINDOW, Pending, Window
from compactcheck.backends.protocol import (
    COMPACT_REQUESTS,
    OPAQUE_COMPACT_RESPONSE,
    PROTOCOL_VERSION,
    CompactResponse,
    ProtocolError,
    StartRequest,
    StartResponse,
    compact_request,
    decode_line,
    parse_line,
    validate_answer,
)
from compactcheck.base.backend import Answer
from compactcheck.base.implementation import Implementation
from compactcheck.invariants import View, json_copy
from compactcheck.options import DEFAULT_TIMEOUT

DEFAULT_MAX_RESTARTS = 3
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
DEFAULT_STDERR_BYTES = 64 * 1024
# How long close() lets a harness exit on its own after stop before killing it.
STOP_GRACE = 1.0
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
        self._argv = list(argv)
        # How a start (and each restart) may fork the harness instead of running ``argv``.
        self._fork = fork
        # What the process is called in findings: "harness" for a cmd: target, "worker process"
        # for a py: target run in isolation.
        self._role = role
        # compactcheck's own Python worker: its results are read by the view's driver, as an
        # in-process compactor's are, not judged by the protocol's schema first (so that both
        # paths judge one answer alike).
        self._opaque_results = opaque_results
        # The input as the compactor left it, when it says it changed it in place (the
        # optional ``inputAfter`` of an answer); None otherwise.
        self.last_input: Any = None
        self._timeout = timeout
        self._start_timeout = start_timeout if start_timeout is not None else max(timeout, 10.0)
        self._max_restarts = max_restarts
        self._max_answer_bytes = max_answer_bytes
        self._cwd = cwd
        self._env = env
        self._ring = StderrRing(stderr_bytes)
        self._seq = itertools.count(1)
        self._restarts = 0
        # Whether the harness ever answered a request: one that dies on some inputs and answers
        # others is restarted every time (each death is a finding of that call, and shrinking
        # one means many deaths in a row); one that never answered is given up on.
        self._answered = False
        self._unavailable: str | None = None
        # The last restart note fed to the stderr ring, and the ring's size just after it.
        self._last_note: tuple[bytes, int] = (b"", -1)
        self._process: HarnessProcess | None = None
        # Requests in flight at once in compact_many; the harness may ask for fewer.
        self._window = window
        self._max_in_flight: int | None = None
        # While a run is noted (``noting``): the requests it made; while answers are served
        # ahead (``ahead``): the answers waiting, by request.
        self._noted: list[Request] | None = None
        self._ahead: dict[str, deque[Answer]] = {}
        self._implementation = self._start()

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
        return self._implementation

    @property
    def pid(self) -> int | None:
        """The running harness's process id (None when none runs)."""
        return self._process.pid if self._process is not None else None

    @property
    def restarts(self) -> int:
        """How many times a harness that crashed or exited on its own was restarted."""
        return self._restarts

    def stderr_tail(self) -> str:
        """The last bytes the harness wrote to stderr, across restarts."""
        return self._ring.text()

    @property
    def window(self) -> int:
        """How many requests compact_many keeps in flight (the harness's maxInFlight caps it)."""
        return min(self._window, self._max_in_flight or self._window)

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
        process = self._running()
        if process is None:
            return Answer.error(f"{self._role} unavailable: {self._unavailable}")
        process.drop_stale_output()
        try:
            raw = process.exchange(line, time.monotonic() + self._timeout)
        except DeadlineError:
            process.kill()
            return self._timed_out(seq)
        except ExitedError:
            return Answer.error(f"{self._role} {self._ended(process)} while answering seq {seq}")
        except OversizeError as oversize:
            if not oversize.resynced:
                process.kill()
            return self._oversize(seq)
        try:
            data, parsed = decode_line(raw, self._answer_model(view))
        except ProtocolError as error:
            return Answer.error(f"{self._role} answer to seq {seq}: {error}")
        assert isinstance(parsed, CompactResponse)
        self._answered = True
        self.last_input = data.get("inputAfter")
        echoed = data["seq"]
        if type(echoed) is not int or echoed != seq:
            return Answer.error(
                f"{self._role} answered with seq {_short(echoed)} to the request with seq {seq}; "
                "an answer must echo its request's seq unchanged"
            )
        return _outcome(data, parsed)

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
            process = self._running()
            if process is None:
                for request in queue:
                    answers[request.index] = Answer.error(
                        f"{self._role} unavailable: {self._unavailable}"
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
            key = _key(view, payload)
            if key is not None:
                self._ahead.setdefault(key, deque()).append(answer)
        try:
            yield
        finally:
            self._ahead.clear()

    def _served(self, view: View, payload: dict[str, Any]) -> Answer | None:
        key = _key(view, payload)
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
                    reason = f"{self._ended(process)} while answering seq {left[0].seq}"
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
                f"{self._role} answered with seq {_short(echoed)}, which no request in flight "
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
        self._answered = True
        answers[request.index] = _outcome(data, parsed)
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
        process, self._process = self._process, None
        self._unavailable = self._unavailable or "the backend was closed"
        if process is not None:
            process.stop(STOP_GRACE)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- lifecycle ---------------------------------------------------------------------------

    def _start(self) -> Implementation:
        """Spawn the harness and complete the handshake; HarnessStartError otherwise."""
        process = HarnessProcess(
            self._argv, self._cwd, self._env, self._ring, self._max_answer_bytes, self._fork
        )
        try:
            implementation = self._handshake(process)
        except HarnessStartError:
            process.kill()
            raise
        self._process = process
        return implementation

    def _handshake(self, process: HarnessProcess) -> Implementation:
        name = shlex.join(self._argv)
        try:
            raw = process.exchange(StartRequest().to_line(), time.monotonic() + self._start_timeout)
        except DeadlineError:
            raise HarnessStartError(
                f"harness {name!r} did not answer the start handshake within "
                f"{self._start_timeout:g} s{self._stderr_hint(process)}"
            ) from None
        except ExitedError:
            raise HarnessStartError(
                f"harness {name!r} {self._ended(process)} before answering the start handshake",
                # Whole: a worker that could not load its compactor says why in one line.
                last_words=self._ring.last_line(process.stderr_mark, limit=2000),
                exit_code=process.popen.returncode,
            ) from None
        except OversizeError:
            raise HarnessStartError(
                f"harness {name!r} answered the start handshake with more than "
                f"{self._max_answer_bytes} bytes"
            ) from None
        try:
            data, parsed = decode_line(raw, StartResponse)
        except ProtocolError as error:
            raise HarnessStartError(
                f"harness {name!r} failed the start handshake: {error}{self._stderr_hint(process)}"
            ) from None
        assert isinstance(parsed, StartResponse)
        self._max_in_flight = parsed.max_in_flight
        if parsed.version != PROTOCOL_VERSION:
            raise HarnessStartError(
                f"harness {name!r} speaks protocol version {_short(data['version'])}; "
                f"compactcheck speaks version {PROTOCOL_VERSION}; upgrade whichever is older"
            )
        return parsed.implementation.to_implementation()

    def _running(self) -> HarnessProcess | None:
        """The live process, restarting an ended one within the budget; None when given up."""
        if self._unavailable is not None:
            return None
        process = self._process
        if process is not None and process.alive:
            return process
        if process is not None:
            hint = self._ended(process)
            status = process.status()
            # A process we killed (timeout, runaway answer) was not a crash of the harness.
            crashed = not process.killed
            process.kill()
            if crashed:
                if not self._answered and self._restarts >= self._max_restarts:
                    self._unavailable = (
                        f"the harness ended {self._restarts + 1} times without ever answering, "
                        f"more than the {self._max_restarts} restarts allowed (max_restarts); it "
                        f"last {hint}"
                    )
                    self._process = None
                    return None
                self._restarts += 1
            note = f"\n[compactcheck: {self._role} {status}; restarting it]\n".encode()
            # The same note again right after itself says nothing new (a hang that every call
            # meets would fill the stderr tail with it); the calls count each one.
            if (note, self._ring.fed) != self._last_note:
                self._ring.feed(note)
                self._last_note = (note, self._ring.fed)
        self._process = None
        try:
            self._start()
        except HarnessStartError as error:
            self._unavailable = f"restarting the {self._role} failed: {error}"
            return None
        return self._process

    def _ended(self, process: HarnessProcess) -> str:
        """How a process ended plus its last stderr line, once it has ended."""
        try:
            process.popen.wait(2.0)
        except subprocess.TimeoutExpired:
            # It closed its stdout but lives on: useless to us, and its own fault.
            process.kill()
            process.killed = False
            return f"closed its stdout without exiting and was killed{self._stderr_hint(process)}"
        process.settle()
        return f"{process.status()}{self._stderr_hint(process)}"

    def _stderr_hint(self, process: HarnessProcess) -> str:
        last = self._ring.last_line(process.stderr_mark)
        return f" (stderr ends: {last})" if last else ""


def _outcome(data: dict[str, Any], parsed: CompactResponse[Any]) -> Answer:
    """The Answer of a valid compact answer whose seq matched its request."""
    after = data.get("inputAfter")
    if parsed.skipped is not None:
        return Answer("skipped", reason=parsed.skipped.reason, input_after=after)
    if parsed.errored is not None:
        message = parsed.errored.message
        if parsed.errored.traceback:
            message = f"{message}\n{parsed.errored.traceback.rstrip()}"
        # compactcheck's own worker marks an answer its compactor got wrong (isolated.py).
        wrong = data["errored"].get("wrongAnswer") is True
        return Answer("errored", reason=message, input_after=after, wrong_answer=wrong)
    result: dict[str, Any] = data["result"]
    return Answer("result", result, input_after=after)


def _key(view: View, payload: dict[str, Any]) -> str | None:
    """What identifies a request for answers served ahead (None: it cannot be identified)."""
    try:
        return view + json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
