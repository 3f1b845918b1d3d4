"""The template process's own side: it loads a Python compactor once, then forks an isolated
worker for each request that arrives on its socket (see ``backends.template`` for why, and for
the requester's side). Standard library only, so that it starts as fast as a worker."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# Set (to anything but "" or "0") to have each worker start say whether it was forked or fresh.
DEBUG_VARIABLE = "COMPACTCHECK_DEBUG"
# The most file descriptors a request carries: stdin, stdout, stderr, lifeline.
_FDS = 4
_HEADER_BYTES = 64 * 1024


def debug(message: str) -> None:
    """One line on stderr when ``COMPACTCHECK_DEBUG`` asks for them."""
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        print(f"compactcheck debug: {message}", file=sys.stderr, flush=True)


def fork_unavailable() -> str:
    """Why this platform cannot fork workers from a template ('' when it can)."""
    if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        return "this platform has no fork or no file descriptor passing"
    return ""


@dataclass(frozen=True)
class Forked:
    """In a worker just forked from a template: its compactor and what it was asked to be."""

    attribute: Any
    view: str | None
    name: str
    memory_note: str


def _threads() -> int:
    """The threads of this process, native ones included where the system lists them."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def serve(listener_fd: int, spec: str, prepare: Callable[[], tuple[Any, str, str]]) -> Forked:
    """The template's life: load the compactor (``prepare`` gives it, why it cannot run, and
    the memory note), then fork a worker per request until its owner closes stdin.

    Returns only in a forked worker; the template itself exits here.
    """
    listener = socket.socket(fileno=listener_fd)
    attribute, problem, memory_note = prepare()
    # What loading it left is collected once, here, and the rest frozen: a forked worker's
    # collector then never walks it, copying each page it shares with the template to free
    # nothing (as the fork server's preload does for run workers, scale.preload).
    gc.collect()
    gc.freeze()
    fresh = ""
    if problem:
        fresh = "the template could not load the compactor"
    elif _threads() > 1:
        fresh = (
            f"importing py:{spec} started {_threads() - 1} thread(s), which a fork would copy "
            "stopped"
        )
    # Woken when a worker exits, to reap it and tell its requester how it ended.
    wake_read, wake_write = socket.socketpair()
    wake_read.setblocking(False)
    wake_write.setblocking(False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_write.fileno(), warn_on_full_buffer=False)
    # Each running worker's connection to its requester, by pid.
    workers: dict[int, socket.socket] = {}
    with selectors.DefaultSelector() as selector:
        selector.register(listener, selectors.EVENT_READ, "request")
        selector.register(wake_read, selectors.EVENT_READ, "exited")
        # The owner holds the other end of stdin: its end (close or death) ends the template.
        selector.register(0, selectors.EVENT_READ, "owner")
        while True:
            for key, _ in selector.select():
                if key.data == "owner":
                    if not os.read(0, 1024):
                        os._exit(0)
                elif key.data == "exited":
                    with contextlib.suppress(OSError):
                        while wake_read.recv(1024):
                            pass
                    _reap(workers)
                else:
                    forked = _fork_one(listener, workers, fresh)
                    if forked is not None:
                        # In the worker: nothing of the template's is left open but the compactor.
                        selector.close()
                        for connection in (listener, wake_read, wake_write, *workers.values()):
                            connection.close()
                        return Forked(attribute, forked[0], forked[1], memory_note)


def _reap(workers: dict[int, socket.socket]) -> None:
    while workers:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = workers.pop(pid, None)
        if connection is not None:
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps({"status": code}).encode() + b"\n")
            connection.close()


def _fork_one(
    listener: socket.socket, workers: dict[int, socket.socket], fresh: str
) -> tuple[str | None, str] | None:
    """Answer one request: fork a worker, or say why not. In the worker: its (view, name)."""
    try:
        connection, _ = listener.accept()
    except OSError:
        return None
    fds: list[int] = []
    try:
        connection.settimeout(10.0)
        header, fds, _, _ = socket.recv_fds(connection, _HEADER_BYTES, _FDS)
        request = json.loads(header)
        if fresh or len(fds) != _FDS:
            reply = {"fresh": fresh or "the request did not carry its pipes"}
            connection.sendall(json.dumps(reply).encode() + b"\n")
            connection.close()
            return None
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
    except (OSError, ValueError, TypeError):
        for fd in fds:
            os.close(fd)
        connection.close()
        return None
    if pid == 0:
        _become_worker(fds)
        connection.close()
        return request.get("view"), str(request.get("name", ""))
    for fd in fds:
        os.close(fd)
    workers[pid] = connection
    with contextlib.suppress(OSError):
        connection.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    return None


def _become_worker(fds: list[int]) -> None:
    """In a just-forked worker: what a fresh start gets from ``subprocess.Popen``."""
    stdin, stdout, stderr, lifeline = fds
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    # Its own session and process group, so that a kill of the group reaches it and its own.
    os.setsid()
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
        os.close(fd)
    _hold_lifeline(lifeline)


def _hold_lifeline(fd: int) -> None:
    """End the worker once its requester is gone (the write end closes with it), even while
    the compactor spins (a fresh worker watches its parent instead)."""

    def watch() -> None:
        with contextlib.suppress(OSError):
            while os.read(fd, 1024):
                pass
        os._exit(0)

    threading.Thread(target=watch, name="compactcheck-lifeline", daemon=True).start()
