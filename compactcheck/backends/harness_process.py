"""A harness process: spawned without a shell, one line out and one line in, within a deadline.

``subprocess_backend`` speaks the protocol over it; this module only sends its stop line.
Each way the process can fail a line exchange (the deadline passes, it exits, its answer is too
long) is an exception of its own here, which the backend turns into an errored answer.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Protocol

from compactcheck.backends.protocol import StopRequest
from compactcheck.base import interrupts
from compactcheck.base.errors import CompactcheckError

_CHUNK = 64 * 1024
# The capacity asked of each protocol pipe (see _widen).
_PIPE_BYTES = 1024 * 1024
# How long a wait for an answer goes without looking for a Ctrl-C (every waiting loop).
SLICE = 0.2


class HarnessStartError(CompactcheckError):
    """A harness that cannot be started, or that fails its start handshake."""

    def __init__(self, message: str, *, last_words: str = "", exit_code: int | None = None):
        super().__init__(message)
        # The last line the harness wrote to stderr, and its exit status, when it ended early.
        self.last_words = last_words
        self.exit_code = exit_code


class DeadlineError(Exception):
    """The harness did not answer before the deadline."""


class ExitedError(Exception):
    """The harness closed its stdout (it exited or crashed) before answering."""


class OversizeError(Exception):
    """The answer line grew past the size cap."""

    def __init__(self, resynced: bool) -> None:
        super().__init__()
        self.resynced = resynced


# A frame of Python's faulthandler traceback: File "comp.py", line 14 in segv
_FAULT_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')


class StderrRing:
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

    def last_line(self, since: int = 0, limit: int = 200) -> str:
        """The last non-blank line fed after byte ``since``, for one-line error messages (at
        most ``limit`` characters of it)."""
        with self._lock:
            kept = self._data[max(0, len(self._data) - (self.fed - since)) :]
            text = kept.decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        fatal = _python_fatal_error(lines)
        if fatal:
            return fatal[:limit]
        return lines[-1][:limit] if lines else ""


def _python_fatal_error(lines: list[str]) -> str:
    """``Fatal Python error: Segmentation fault, in segv at comp.py:14`` from what Python's
    faulthandler wrote (each thread's traceback lists its innermost frame first), or ''."""
    starts = [index for index, line in enumerate(lines) if line.startswith("Fatal Python error:")]
    if not starts:
        return ""
    error = lines[starts[-1]]
    after = lines[starts[-1] + 1 :]
    # With several threads, the one that crashed is the "Current thread" block.
    current = next((i for i, line in enumerate(after) if line.startswith("Current thread")), 0)
    for line in after[current:]:
        found = _FAULT_FRAME.match(line)
        if found:
            return f"{error}, in {found['function']} at {found['file']}:{found['line']}"
    return error


def _drain(fd: int, ring: StderrRing) -> None:
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


def _widen(fd: int) -> None:
    # A pipe holds 64 KB by default: three requests of a 50-message history. A wider one lets a
    # pipelined window sit in the pipe whole, so that neither side wakes the other per request.
    # Linux only; where it is refused (a lower pipe-max-size), the default pipe serves.
    if sys.platform != "linux":
        return
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


# What a fatal signal most often means for a compactor's process.
_SIGNAL_MEANINGS = {
    "SIGSEGV": "a segmentation fault: a crash in native code",
    "SIGBUS": "a bus error: a crash in native code",
    "SIGILL": "an illegal instruction: a crash in native code",
    "SIGFPE": "an arithmetic fault in native code",
    "SIGABRT": "aborted, e.g. by a failed assertion or allocation in native code",
    "SIGKILL": "killed outright, by a process or by the system when memory ran out",
}


class Child(Protocol):
    """A started harness as ``subprocess.Popen`` shows it (or a worker forked from a template,
    ``backends.template``)."""

    pid: int
    returncode: int | None
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None:
        """The exit status, None while it runs."""
        ...

    def wait(self, timeout: float | None = None) -> int:
        """The exit status, waited for up to ``timeout`` seconds (``TimeoutExpired``)."""
        ...


# Starts the harness some other way than a fresh process (a fork); None: start it fresh.
Fork = Callable[[], Child | None]


class HarnessProcess:
    """One running harness process, its non-blocking pipes and its stdout buffer."""

    def __init__(
        self,
        argv: list[str],
        cwd: str | Path | None,
        env: Mapping[str, str] | None,
        ring: StderrRing,
        max_answer_bytes: int,
        fork: Fork | None = None,
    ) -> None:
        # Where this process's stderr starts in the ring, so errors quote its words alone.
        self.stderr_mark = ring.fed
        forked = fork() if fork is not None else None
        self.popen: Child = forked if forked is not None else self._fresh(argv, cwd, env)
        assert self.popen.stdin is not None
        assert self.popen.stdout is not None
        assert self.popen.stderr is not None
        self._stdin = self.popen.stdin.fileno()
        self._stdout = self.popen.stdout.fileno()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        _widen(self._stdin)
        _widen(self._stdout)
        self._drainer = threading.Thread(
            target=_drain, args=(self.popen.stderr.fileno(), ring), daemon=True
        )
        self._drainer.start()
        self._max = max_answer_bytes
        self._buffer = bytearray()
        self._discarding = False
        self.killed = False

    @staticmethod
    def _fresh(
        argv: list[str], cwd: str | Path | None, env: Mapping[str, str] | None
    ) -> subprocess.Popen[bytes]:
        command = argv[0]
        try:
            return subprocess.Popen(
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
        # Most lines fit the pipe at once: written now, without waiting to be told it is free.
        pending = pending[self.write_some(pending) :]
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
                        raise OversizeError(resynced=False)
                    raise DeadlineError
                # In slices, so that a Ctrl-C heard meanwhile is acted on promptly.
                interrupts.check()
                for key, _ in selector.select(min(remaining, SLICE)):
                    if key.fd == self._stdin:
                        pending = pending[self.write_some(pending) :]
                        if not pending:
                            selector.unregister(self._stdin)
                    else:
                        self._read_more()

    @property
    def stdin_fd(self) -> int:
        """The harness's stdin, non-blocking."""
        return self._stdin

    @property
    def stdout_fd(self) -> int:
        """The harness's stdout, non-blocking."""
        return self._stdout

    @property
    def discarding(self) -> bool:
        """Whether an answer past the size cap is being skipped to its end."""
        return self._discarding

    def write_some(self, pending: memoryview) -> int:
        """Write what the stdin pipe takes now; the bytes written (all of them once it closed)."""
        try:
            return os.write(self._stdin, pending)
        except BlockingIOError:
            return 0
        except OSError:
            # It closed stdin or died; what it says on stdout decides the rest.
            return len(pending)

    def read_more(self) -> None:
        """Read what stdout holds now into the buffer; ExitedError at its end."""
        self._read_more()

    def take_line(self) -> bytes | None:
        """The next complete answer line, None until one arrives; OversizeError past the cap."""
        return self._take_line()

    def _read_more(self) -> None:
        try:
            chunk = os.read(self._stdout, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            raise ExitedError
        self._buffer += chunk

    def _take_line(self) -> bytes | None:
        """The next complete non-blank line, None until one arrives; OversizeError past the cap."""
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
                raise OversizeError(resynced=True)
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
        if code < 0 and self.killed:
            return "was killed by compactcheck"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            meaning = _SIGNAL_MEANINGS.get(name)
            return f"was killed by {name}" + (f" ({meaning})" if meaning else "")
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
