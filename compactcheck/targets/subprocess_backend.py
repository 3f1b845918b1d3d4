"""A backend run as a subprocess speaking the JSON-lines protocol on its stdin and stdout.

The harness is started without a shell, answers a start handshake, then one compact request at a
time. Every way a harness can misbehave (hang, crash, exit, write garbage, answer the wrong
request, answer too much, flood stderr) becomes an errored Answer for that call, never a hang or
an exception in the runner; only a harness that cannot be started at all raises.
"""

from __future__ import annotations

import itertools
import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from compactcheck.report.model import Implementation
from compactcheck.targets.backend import Answer
from compactcheck.targets.harness_process import (
    DeadlineError,
    ExitedError,
    HarnessProcess,
    HarnessStartError,
    OversizeError,
    StderrRing,
)
from compactcheck.targets.protocol import (
    COMPACT_REQUESTS,
    PROTOCOL_VERSION,
    CompactResponse,
    ProtocolError,
    StartRequest,
    StartResponse,
    compact_request,
    decode_line,
)
from invariants import View

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_RESTARTS = 3
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
DEFAULT_STDERR_BYTES = 64 * 1024
# How long close() lets a harness exit on its own after stop before killing it.
STOP_GRACE = 1.0
_CHUNK = 64 * 1024
# How long a wait for an answer goes without looking for a Ctrl-C.
_SLICE = 0.2


class CommandBackend:
    """A compactor in any language, run as a protocol v1 harness subprocess."""

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
    ) -> None:
        if isinstance(argv, str) or not argv:
            raise HarnessStartError(
                f"expected the harness command as a non-empty argument list; found {argv!r}"
            )
        self._argv = list(argv)
        # What the process is called in findings: "harness" for a cmd: target, "worker process"
        # for a py: target run in isolation.
        self._role = role
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

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """Answer one compact request; every harness fault becomes an errored Answer."""
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
            return Answer.error(
                f"{self._role} did not answer seq {seq} within {self._timeout:g} s; it was killed "
                "and will be restarted for the next call",
                timed_out=True,
            )
        except ExitedError:
            return Answer.error(f"{self._role} {self._ended(process)} while answering seq {seq}")
        except OversizeError as oversize:
            if not oversize.resynced:
                process.kill()
            return Answer.error(
                f"{self._role} answer to seq {seq} exceeds the {self._max_answer_bytes}-byte cap "
                "(max_answer_bytes); raise the cap or return less"
            )
        model = COMPACT_REQUESTS[view].answer_model
        assert model is not None
        try:
            data, parsed = decode_line(raw, model)
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
        if parsed.skipped is not None:
            return Answer.skip(parsed.skipped.reason)
        if parsed.errored is not None:
            message = parsed.errored.message
            if parsed.errored.traceback:
                message = f"{message}\n{parsed.errored.traceback.rstrip()}"
            return Answer.error(message)
        result: dict[str, Any] = data["result"]
        return Answer.ok(result)

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
            self._argv, self._cwd, self._env, self._ring, self._max_answer_bytes
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
                last_words=self._ring.last_line(process.stderr_mark),
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


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
