"""The template process: a Python compactor imported once, each isolated worker forked from it.

A run with several workers starts one isolated worker process per worker, and each used to be a
fresh interpreter importing compactcheck and the compactor (a model client, a framework) anew:
eight imports of half a second each on two cores, all before the first call. A template is one
process that imports the compactor (``python -m compactcheck.backends.isolated --template FD
SPEC``) and then only forks: a worker is asked for over a Unix socket, its pipes passed with
the request, and the fork is in all other ways the worker a fresh start makes (its own session,
its standard streams on those pipes, the same memory limit, faulthandler, the same answers).

What a fresh worker learns from its parent, a forked one learns from this socket: the
requester's connection carries the worker's pid, then its exit status once the template has
reaped it (``ForkedWorker`` reads them as ``subprocess.Popen`` would). Each worker also holds
the read end of a pipe whose write end only its requester holds (the lifeline): when the
requester is gone, however it went, the worker exits.

A template answers "start it fresh" instead of forking when forking would be unsafe or useless:
the compactor's module started threads at import (a fork copies them dead, with whatever locks
they held), or it cannot be loaded (the fresh start then reports why, as it always did). The
requester then starts a fresh worker, and says so when ``COMPACTCHECK_DEBUG`` is set.

The template's own side (``serve``) is ``backends.template_process``; this module is the side of
the processes that ask it for workers.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from compactcheck.backends.template_process import (
    debug,
    fork_unavailable,
)

# How long closing a template waits for it to exit before it is killed.
_CLOSE_GRACE = 0.1


class ForkedWorker:
    """A worker forked by a template, seen as ``subprocess.Popen`` sees its child."""

    def __init__(
        self,
        pid: int,
        connection: socket.socket,
        lifeline: int,
        streams: tuple[int, int, int],
        received: bytes = b"",
    ) -> None:
        self.pid = pid
        self.args = f"forked worker {pid}"
        self.returncode: int | None = None
        self._connection = connection
        self._lifeline: int | None = lifeline
        # What the template sent after the pid (its exit status, when it ended at once).
        self._buffer = received
        stdin, stdout, stderr = streams
        self.stdin: IO[bytes] | None = open(stdin, "wb", buffering=0)  # noqa: SIM115
        self.stdout: IO[bytes] | None = open(stdout, "rb", buffering=0)  # noqa: SIM115
        self.stderr: IO[bytes] | None = open(stderr, "rb", buffering=0)  # noqa: SIM115

    def poll(self) -> int | None:
        """The exit status once the template has reaped the worker, else None."""
        if self.returncode is None:
            self._read(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit status; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            self._read(left)
        return self.returncode

    def _read(self, timeout: float | None) -> None:
        if b"\n" not in self._buffer:
            self._receive(timeout)
        if b"\n" in self._buffer:
            line = self._buffer.split(b"\n", 1)[0]
            self._ended(int(json.loads(line)["status"]))

    def _receive(self, timeout: float | None) -> None:
        self._connection.settimeout(timeout)
        try:
            chunk = self._connection.recv(1024)
        except (TimeoutError, BlockingIOError):
            return
        except OSError:
            chunk = b""
        if chunk:
            self._buffer += chunk
            return
        # The template ended before the worker: its status is lost; it is over once gone.
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            self._ended(-signal.SIGKILL)
            return
        except PermissionError:
            pass
        if timeout != 0.0:
            time.sleep(0.05 if timeout is None else min(timeout, 0.05))

    def _ended(self, code: int) -> None:
        self.returncode = code
        self._connection.close()
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None


@dataclass(frozen=True)
class TemplateFork:
    """Starts an isolated worker by asking a template to fork one, or fresh when it cannot."""

    address: str
    spec: str
    view: str | None
    name: str
    timeout: float

    def __call__(self) -> ForkedWorker | None:
        """A worker forked from the template; None (and why, in debug output) to start fresh."""
        try:
            return self._forked()
        except _FreshStartError as reason:
            debug(f"py:{self.spec}: worker process started fresh: {reason}")
            return None

    def _forked(self) -> ForkedWorker:
        pipes = [os.pipe() for _ in range(4)]
        (stdin_r, stdin_w), (stdout_r, stdout_w), (stderr_r, stderr_w), (life_r, life_w) = pipes
        theirs = [stdin_r, stdout_w, stderr_w, life_r]
        mine = [stdin_w, stdout_r, stderr_r, life_w]
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(self.timeout)
            connection.connect(self.address)
            header = json.dumps({"view": self.view, "name": self.name}).encode()
            socket.send_fds(connection, [header], theirs)
            reply = b""
            while b"\n" not in reply:
                chunk = connection.recv(1024)
                if not chunk:
                    raise _FreshStartError("the template process ended")
                reply += chunk
            line, received = reply.split(b"\n", 1)
            answer = json.loads(line)
        except TimeoutError:
            _close(connection, mine)
            raise _FreshStartError(
                f"the template did not answer within {self.timeout:g} s"
            ) from None
        except OSError as error:
            _close(connection, mine)
            raise _FreshStartError(
                f"the template is unreachable ({error.strerror or error})"
            ) from None
        except ValueError:
            _close(connection, mine)
            raise _FreshStartError("the template's answer is not JSON") from None
        except BaseException:
            # Its own reason to start fresh, or an interrupt: either way the pipes are not used.
            _close(connection, mine)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        if "pid" not in answer:
            _close(connection, mine)
            raise _FreshStartError(str(answer.get("fresh", "the template refused")))
        debug(f"py:{self.spec}: worker process {answer['pid']} forked from the template")
        streams = (stdin_w, stdout_r, stderr_r)
        return ForkedWorker(int(answer["pid"]), connection, life_w, streams, received)


class _FreshStartError(Exception):
    """Why a worker is started fresh rather than forked."""


def _close(connection: socket.socket, fds: list[int]) -> None:
    connection.close()
    for fd in fds:
        os.close(fd)


# -- the owner's side ------------------------------------------------------------------------


class Template:
    """A running template process for one compactor, owned by the process that started it."""

    def __init__(self, spec: str, memory_limit_mb: int, env: Mapping[str, str]) -> None:
        self.spec = spec
        self._folder = tempfile.mkdtemp(prefix="compactcheck-template-")
        self.address = os.path.join(self._folder, "socket")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.address)
            listener.listen(64)
            argv = [sys.executable, "-m", "compactcheck.backends.isolated", "--template"]
            argv += [str(listener.fileno()), "--memory-limit", str(memory_limit_mb), spec]
            # Its stdin is its lifeline: it exits when this process closes it or dies.
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=dict(env),
                pass_fds=[listener.fileno()],
                start_new_session=True,
            )
        finally:
            # The template accepts; a request made before it is ready waits in the backlog.
            listener.close()

    @property
    def pid(self) -> int:
        """The template's process id."""
        return self._process.pid

    def close(self) -> None:
        """End the template (its forked workers are their requesters' to end)."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        try:
            # An idle template exits at once. One still importing the compactor (a run that
            # stopped before it used it, e.g. on a usage error after a head start) has nothing
            # to finish and nothing to clean up (it leaves by os._exit): it is not waited for.
            self._process.wait(_CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)


# The templates this process started, by spec and memory limit, while wanted (see ``want``).
_templates: dict[tuple[str, int], Template] = {}
_wanted = False


def want() -> None:
    """Have ``template_for`` start templates from now on (a run with workers asks)."""
    global _wanted
    _wanted = True


def template_for(spec: str, memory_limit_mb: int, env: Mapping[str, str]) -> Template | None:
    """The template of ``spec`` under that memory limit this process started, started now if
    wanted; None otherwise."""
    key = (spec, memory_limit_mb)
    template = _templates.get(key)
    if template is not None or not _wanted:
        return template
    unavailable = fork_unavailable()
    if unavailable:
        debug(f"py:{spec}: no template process: {unavailable}")
        return None
    template = _templates[key] = Template(spec, memory_limit_mb, env)
    debug(f"py:{spec}: template process {template.pid} started")
    return template


def addresses(memory_limit_mb: int) -> tuple[tuple[str, str], ...]:
    """(spec, socket address) of each template under that memory limit this process runs, for
    its run workers."""
    return tuple(
        (spec, template.address)
        for (spec, limit), template in _templates.items()
        if limit == memory_limit_mb
    )


def close_all() -> None:
    """End every template this process started, and want none until asked again."""
    global _wanted
    _wanted = False
    while _templates:
        _, template = _templates.popitem()
        template.close()


# A template must not outlive the process that owns it (it would also end, its stdin closed).
atexit.register(close_all)
