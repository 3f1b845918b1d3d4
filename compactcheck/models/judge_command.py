"""A judge that is a program: ``cmd:PROGRAM`` answers one JSON line per JSON line it is sent.

The program is started on the first request and kept running: each request's user turn (a
``JudgeRequest`` as one JSON line) is written to its standard input, and the next line of its
standard output is the answer. It is a ``Model`` like any other, so that the slot's cache, call
cap and offline mode hold for it; a program that cannot start, dies, or answers nothing in time
is a ``ModelError`` of one line naming it, with the end of what it wrote on standard error.
"""

from __future__ import annotations

import atexit
import os
import selectors
import shlex
import subprocess
import time

from compactcheck.models.model import ModelError
from compactcheck.models.request import ModelRequest

# How long a judge program may take over one answer.
ANSWER_SECONDS = 30.0


class CommandJudge:
    """A judge program behind the model protocol (``cmd:PROGRAM``)."""

    def __init__(self, command: str, seconds: float = ANSWER_SECONDS) -> None:
        self.command = command
        self.seconds = seconds
        self._process: subprocess.Popen[bytes] | None = None
        self._pending = b""

    @property
    def name(self) -> str:
        """``cmd:PROGRAM``, which keys its recorded answers."""
        return f"cmd:{self.command}"

    def answer(self, request: ModelRequest) -> str:
        """The program's line for the request's last user turn (a judge request)."""
        line = request.turns[-1].text.replace("\n", " ") + "\n"
        process = self._started()
        assert process.stdin is not None
        try:
            process.stdin.write(line.encode())
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            self._fail("stopped before it was asked")
        return self._line()

    def close(self) -> None:
        """Stop the program (it is started again by the next request)."""
        process, self._process = self._process, None
        self._pending = b""
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        try:
            argv = shlex.split(self.command)
        except ValueError as error:
            raise ModelError(f"--judge {self.name}: not a command line ({error})") from None
        if not argv:
            raise ModelError(f"--judge {self.name}: names no program")
        try:
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as error:
            raise ModelError(f"--judge {self.name}: cannot start it ({error.strerror})") from None
        self._pending = b""
        atexit.register(self.close)
        return self._process

    def _line(self) -> str:
        """The next line the program writes, within ``seconds``."""
        process = self._process
        assert process is not None
        assert process.stdout is not None
        deadline = time.monotonic() + self.seconds
        stream = process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
            while b"\n" not in self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._fail(f"answered nothing within {self.seconds:g} s")
                if not selector.select(left):
                    continue
                chunk = os.read(stream, 65536)
                if not chunk:
                    self._fail("exited before it answered")
                self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _fail(self, what: str) -> None:
        process = self._process
        tail = ""
        if process is not None:
            if process.poll() is None:
                process.kill()
            process.wait()
            if process.stderr is not None:
                text = process.stderr.read().decode("utf-8", "replace").strip()
                tail = f"; its stderr ends: {text[-200:]!r}" if text else ""
        self.close()
        raise ModelError(f"--judge {self.name}: {what}{tail}")


__all__ = ["ANSWER_SECONDS", "CommandJudge"]
