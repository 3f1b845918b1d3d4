"""A harness process kept alive: started with its handshake, restarted when it ends on its own
within a budget, given up on when it never answers, stopped when done."""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from compactcheck.backends.harness_process import (
    DeadlineError,
    ExitedError,
    Fork,
    HarnessProcess,
    HarnessStartError,
    OversizeError,
    StderrRing,
)
from compactcheck.backends.lines import decode_line
from compactcheck.backends.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    StartRequest,
    StartResponse,
)
from compactcheck.base.implementation import Implementation

# How long close() lets a harness exit on its own after stop before killing it.
STOP_GRACE = 1.0


def short(value: object) -> str:
    """A value as a short repr, for messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Supervisor:
    """One harness command's process: its start, its restarts, its end, and what it said."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        role: str,
        cwd: str | Path | None,
        env: Mapping[str, str] | None,
        ring: StderrRing,
        start_timeout: float,
        max_restarts: int,
        max_answer_bytes: int,
        fork: Fork | None,
    ) -> None:
        self._argv = list(argv)
        # How a start (and each restart) may fork the harness instead of running ``argv``.
        self._fork = fork
        # What the process is called in findings: "harness" for a cmd: target, "worker process"
        # for a py: target run in isolation.
        self.role = role
        self._cwd = cwd
        self._env = env
        self._ring = ring
        self._start_timeout = start_timeout
        self._max_restarts = max_restarts
        self._max_answer_bytes = max_answer_bytes
        self.restarts = 0
        # Whether the harness ever answered a request: one that dies on some inputs and answers
        # others is restarted every time (each death is a finding of that call, and shrinking
        # one means many deaths in a row); one that never answered is given up on.
        self.answered = False
        # Why no process runs any more (None while one may): given up on, or closed.
        self.unavailable: str | None = None
        # The last restart note fed to the stderr ring, and the ring's size just after it.
        self._last_note: tuple[bytes, int] = (b"", -1)
        self.process: HarnessProcess | None = None
        # The most requests in flight the harness said it takes (None: no limit said).
        self.max_in_flight: int | None = None
        self.implementation = self._start()

    def close(self) -> None:
        """Send stop, give the harness a moment to exit, then kill it."""
        process, self.process = self.process, None
        self.unavailable = self.unavailable or "the backend was closed"
        if process is not None:
            process.stop(STOP_GRACE)

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
        self.process = process
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
                f"harness {name!r} {self.ended(process)} before answering the start handshake",
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
        self.max_in_flight = parsed.max_in_flight
        if parsed.version != PROTOCOL_VERSION:
            raise HarnessStartError(
                f"harness {name!r} speaks protocol version {short(data['version'])}; "
                f"compactcheck speaks version {PROTOCOL_VERSION}; upgrade whichever is older"
            )
        return parsed.implementation.to_implementation()

    def running(self) -> HarnessProcess | None:
        """The live process, restarting an ended one within the budget; None when given up."""
        if self.unavailable is not None:
            return None
        process = self.process
        if process is not None and process.alive:
            return process
        if process is not None:
            hint = self.ended(process)
            status = process.status()
            # A process we killed (timeout, runaway answer) was not a crash of the harness.
            crashed = not process.killed
            process.kill()
            if crashed:
                if not self.answered and self.restarts >= self._max_restarts:
                    self.unavailable = (
                        f"the harness ended {self.restarts + 1} times without ever answering, "
                        f"more than the {self._max_restarts} restarts allowed (max_restarts); it "
                        f"last {hint}"
                    )
                    self.process = None
                    return None
                self.restarts += 1
            note = f"\n[compactcheck: {self.role} {status}; restarting it]\n".encode()
            # The same note again right after itself says nothing new (a hang that every call
            # meets would fill the stderr tail with it); the calls count each one.
            if (note, self._ring.fed) != self._last_note:
                self._ring.feed(note)
                self._last_note = (note, self._ring.fed)
        self.process = None
        try:
            self._start()
        except HarnessStartError as error:
            self.unavailable = f"restarting the {self.role} failed: {error}"
            return None
        return self.process

    def ended(self, process: HarnessProcess) -> str:
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
