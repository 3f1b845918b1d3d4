"""A backend run as a subprocess speaking the JSON-lines protocol on its stdin and stdout.

The harness is started without a shell, answers a start handshake, then one compact request at a
time. Every way a harness can misbehave (hang, crash, exit, write garbage, answer the wrong
request, answer too much, flood stderr) becomes an errored Answer for that call, never a hang or
an exception in the runner; only a harness that cannot be started at all raises.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from compactcheck.engine import interrupts
from compactcheck.errors import CompactcheckError
from compactcheck.report.model import Implementation
from compactcheck.targets.backend import Answer
from compactcheck.targets.protocol import (
    COMPACT_REQUESTS,
    PROTOCOL_VERSION,
    CompactResponse,
    ProtocolError,
    StartRequest,
    StartResponse,
    StopRequest,
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


class HarnessStartError(CompactcheckError):
    """A harness that cannot be started, or that fails its start handshake."""


class _DeadlineError(Exception):
    """The harness did not answer before the deadline."""


class _ExitedError(Exception):
    """The harness closed its stdout (it exited or crashed) before answering."""


class _OversizeError(Exception):
    """The answer line grew past the size cap."""

    def __init__(self, resynced: bool) -> None:
        super().__init__()
        self.resynced = resynced


class _StderrRing:
    """The last bytes a harness wrote to stderr, across restarts, filled by a drain thread."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._data = bytearray()
        self._lock = threading.Lock()
        self.fed = 0

    def feed(self, chunk: bytes) -> None:
        """Append bytes, forgetting the oldest beyond the limit."""
        with self._lock:
            self.fed += len(chunk)
            self._data += chunk
            excess = len(self._data) - self._limit
            if excess > 0:
                del self._data[:excess]

    def text(self) -> str:
        """The kept bytes as text (undecodable bytes replaced)."""
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def last_line(self, since: int = 0) -> str:
        """The last non-blank line fed after byte ``since``, for one-line error messages."""
        with self._lock:
            kept = self._data[max(0, len(self._data) - (self.fed - since)) :]
            text = kept.decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:200] if lines else ""


def _drain(fd: int, ring: _StderrRing) -> None:
    # Reading continuously keeps the pipe from filling: a harness blocked on a full stderr pipe
    # would never answer, and the call would time out for no fault of the compactor.
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError:
            return
        if not chunk:
            return
        ring.feed(chunk)


class _Process:
    """One running harness process, its non-blocking pipes and its stdout buffer."""

    def __init__(
        self,
        argv: list[str],
        cwd: str | Path | None,
        env: Mapping[str, str] | None,
        ring: _StderrRing,
        max_answer_bytes: int,
    ) -> None:
        command = argv[0]
        # Where this process's stderr starts in the ring, so errors quote its words alone.
        self.stderr_mark = ring.fed
        try:
            self.popen = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                bufsize=0,
                # Its own process group, so that a kill also reaches whatever it spawned.
                start_new_session=True,
            )
        except FileNotFoundError:
            where = f" in {cwd}" if cwd is not None else ""
            raise HarnessStartError(
                f"cannot start harness {command!r}: no such command or file{where}; give the "
                "command's full path or fix the cmd: target"
            ) from None
        except PermissionError:
            raise HarnessStartError(
                f"cannot start harness {command!r}: permission denied; make it executable or "
                "run it through its interpreter (e.g. cmd:node harness.js)"
            ) from None
        except OSError as error:
            raise HarnessStartError(
                f"cannot start harness {command!r}: {error.strerror or error}"
            ) from None
        assert self.popen.stdin is not None
        assert self.popen.stdout is not None
        assert self.popen.stderr is not None
        self._stdin = self.popen.stdin.fileno()
        self._stdout = self.popen.stdout.fileno()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        self._drainer = threading.Thread(
            target=_drain, args=(self.popen.stderr.fileno(), ring), daemon=True
        )
        self._drainer.start()
        self._max = max_answer_bytes
        self._buffer = bytearray()
        self._discarding = False
        self.killed = False

    @property
    def pid(self) -> int:
        """The harness's process id."""
        return self.popen.pid

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.popen.poll() is None

    def drop_stale_output(self) -> None:
        """Forget anything the harness wrote that no request asked for (e.g. a second answer)."""
        self._buffer.clear()
        self._discarding = False
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self._stdout, _CHUNK):
                pass

    def exchange(self, line: bytes, deadline: float) -> bytes:
        """Send one request line and return the next answer line (without its newline)."""
        pending = memoryview(line)
        answer: bytes | None = None
        with selectors.DefaultSelector() as selector:
            selector.register(self._stdout, selectors.EVENT_READ)
            if pending:
                selector.register(self._stdin, selectors.EVENT_WRITE)
            while True:
                if answer is None:
                    answer = self._take_line()
                if answer is not None and not pending:
                    return answer
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if self._discarding:
                        raise _OversizeError(resynced=False)
                    raise _DeadlineError
                # In slices, so that a Ctrl-C heard meanwhile is acted on promptly.
                interrupts.check()
                for key, _ in selector.select(min(remaining, _SLICE)):
                    if key.fd == self._stdin:
                        try:
                            written = os.write(self._stdin, pending)
                        except BlockingIOError:
                            continue
                        except OSError:
                            # It closed stdin or died; what it says on stdout decides the rest.
                            written = len(pending)
                        pending = pending[written:]
                        if not pending:
                            selector.unregister(self._stdin)
                    else:
                        self._read_more()

    def _read_more(self) -> None:
        try:
            chunk = os.read(self._stdout, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            raise _ExitedError
        self._buffer += chunk

    def _take_line(self) -> bytes | None:
        """The next complete non-blank line, None until one arrives; _OversizeError past the cap."""
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > self._max:
                    # Keep memory bounded: drop what came, then skip to the line's end.
                    self._discarding = True
                    self._buffer.clear()
                return None
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._discarding or end > self._max:
                self._discarding = False
                raise _OversizeError(resynced=True)
            if line.strip():
                return line

    def send_quietly(self, line: bytes) -> None:
        """Write a line if the pipe takes it now; used for stop, which has no answer."""
        with contextlib.suppress(OSError):
            os.write(self._stdin, line)

    def status(self) -> str:
        """How the process ended, as words ('exited with code 3', 'was killed by SIGKILL')."""
        code = self.popen.poll()
        if code is None:
            return "is still running"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"was killed by {name}"
        return f"exited with code {code}"

    def stop(self, grace: float) -> None:
        """Ask for a clean exit, wait up to ``grace`` seconds, then kill."""
        if self.alive:
            self.send_quietly(StopRequest().to_line())
            with contextlib.suppress(OSError):
                self.popen.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(grace)
        self.kill()

    def kill(self) -> None:
        """Kill the process group, reap it, and release the pipes."""
        if self.alive:
            self.killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5.0)
        self.settle()
        for stream in (self.popen.stdin, self.popen.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        if not self._drainer.is_alive() and self.popen.stderr is not None:
            self.popen.stderr.close()

    def settle(self) -> None:
        """Give the stderr drain a moment to collect the last words of an ended process."""
        self._drainer.join(timeout=1.0)


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
    ) -> None:
        if isinstance(argv, str) or not argv:
            raise HarnessStartError(
                f"expected the harness command as a non-empty argument list; found {argv!r}"
            )
        self._argv = list(argv)
        self._timeout = timeout
        self._start_timeout = start_timeout if start_timeout is not None else max(timeout, 10.0)
        self._max_restarts = max_restarts
        self._max_answer_bytes = max_answer_bytes
        self._cwd = cwd
        self._env = env
        self._ring = _StderrRing(stderr_bytes)
        self._seq = itertools.count(1)
        self._restarts = 0
        # Whether the harness ever answered a request: one that dies on some inputs and answers
        # others is restarted every time (each death is a finding of that call, and shrinking
        # one means many deaths in a row); one that never answered is given up on.
        self._answered = False
        self._unavailable: str | None = None
        self._process: _Process | None = None
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
        process = self._running()
        if process is None:
            return Answer.error(f"harness unavailable: {self._unavailable}")
        process.drop_stale_output()
        try:
            raw = process.exchange(line, time.monotonic() + self._timeout)
        except _DeadlineError:
            process.kill()
            return Answer.error(
                f"harness did not answer seq {seq} within {self._timeout:g} s; it was killed "
                "and will be restarted for the next call",
                timed_out=True,
            )
        except _ExitedError:
            return Answer.error(f"harness {self._ended(process)} while answering seq {seq}")
        except _OversizeError as oversize:
            if not oversize.resynced:
                process.kill()
            return Answer.error(
                f"harness answer to seq {seq} exceeds the {self._max_answer_bytes}-byte cap "
                "(max_answer_bytes); raise the cap or return less"
            )
        model = COMPACT_REQUESTS[view].answer_model
        assert model is not None
        try:
            data, parsed = decode_line(raw, model)
        except ProtocolError as error:
            return Answer.error(f"harness answer to seq {seq}: {error}")
        assert isinstance(parsed, CompactResponse)
        self._answered = True
        echoed = data["seq"]
        if type(echoed) is not int or echoed != seq:
            return Answer.error(
                f"harness answered with seq {_short(echoed)} to the request with seq {seq}; "
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
        process = _Process(self._argv, self._cwd, self._env, self._ring, self._max_answer_bytes)
        try:
            implementation = self._handshake(process)
        except HarnessStartError:
            process.kill()
            raise
        self._process = process
        return implementation

    def _handshake(self, process: _Process) -> Implementation:
        name = shlex.join(self._argv)
        try:
            raw = process.exchange(StartRequest().to_line(), time.monotonic() + self._start_timeout)
        except _DeadlineError:
            raise HarnessStartError(
                f"harness {name!r} did not answer the start handshake within "
                f"{self._start_timeout:g} s{self._stderr_hint(process)}"
            ) from None
        except _ExitedError:
            raise HarnessStartError(
                f"harness {name!r} {self._ended(process)} before answering the start handshake"
            ) from None
        except _OversizeError:
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

    def _running(self) -> _Process | None:
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
            self._ring.feed(f"\n[compactcheck: harness {status}; restarting it]\n".encode())
        self._process = None
        try:
            self._start()
        except HarnessStartError as error:
            self._unavailable = f"restarting the harness failed: {error}"
            return None
        return self._process

    def _ended(self, process: _Process) -> str:
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

    def _stderr_hint(self, process: _Process) -> str:
        last = self._ring.last_line(process.stderr_mark)
        return f" (stderr ends: {last})" if last else ""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
