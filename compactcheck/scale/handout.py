"""Shards handed out one at a time to lanes: threads, in this process or in worker processes,
each running one shard at a time and asking for the next when it is done.

An idle lane takes the next shard in the plan's order, so that no lane waits while another has
several left: a straggler holds up only its own lane. Which lane ran a shard changes nothing of
what it found (a shard's seed and budget are its own); what each lane returns is kept by the
shard's index, and the caller folds the shards in that order.

The parent holds the ``Handout``. Lanes in this process ask it directly (``local_lanes``);
lanes in a worker process (``remote_lanes``) ask it over a Unix socket, one connection per
lane, authenticated with a key only the parent and its workers know.
"""

from __future__ import annotations

import contextlib
import pickle
import queue
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from compactcheck.base import interrupts

# What a lane runs: the shard of that index, to what it returns.
Work = Callable[[int], Any]


@dataclass(frozen=True)
class Returned:
    """What a lane's run of one shard gave back, or the error it raised."""

    index: int
    value: Any = None
    error: BaseException | None = None


class LaneLostError(Exception):
    """The process running a shard ended before the shard did."""


def _ran(index: int, work: Work) -> Returned:
    try:
        return Returned(index, work(index))
    except BaseException as error:  # handed to the parent, which raises it there
        return Returned(index, error=error)


def _lane(ask: Callable[[Returned | None, bool], int | None], work: Work) -> None:
    """Run shards until none is left: each ask hands back the last one's result."""
    done: Returned | None = None
    while True:
        # A lane told to stop (a Ctrl-C, SIGTERM) hands back what it has and takes no more.
        index = ask(done, not interrupts.heard())
        if index is None:
            return
        done = _ran(index, work)


class Handout:
    """The indices 0 to ``count`` - 1, each handed to the first lane that asks, in order; what
    comes back waits in ``returned``."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.returned: queue.Queue[Returned] = queue.Queue()
        self._next = 0
        self._closed = False
        self._lock = threading.Lock()
        self._listener: Listener | None = None
        self._key = b""
        self._acceptor: threading.Thread | None = None

    @property
    def handed(self) -> int:
        """How many shards lanes have taken."""
        return self._next

    @property
    def exhausted(self) -> bool:
        """Whether no shard is left to hand out (all taken, or ``close`` was called)."""
        with self._lock:
            return self._closed or self._next >= self.count

    def take(self) -> int | None:
        """The next shard's index; None when none is left."""
        with self._lock:
            if self._closed or self._next >= self.count:
                return None
            self._next += 1
            return self._next - 1

    def give(self, returned: Returned) -> None:
        """Keep what a lane returned."""
        self.returned.put(returned)

    def close(self) -> None:
        """Hand out no more (the run was interrupted); the shards taken still come back."""
        with self._lock:
            self._closed = True

    def _ask(self, done: Returned | None, more: bool) -> int | None:
        if done is not None:
            self.give(done)
        return self.take() if more else None

    # -- lanes in worker processes ---------------------------------------------------------

    def listen(self) -> tuple[str, bytes]:
        """Serve lanes in other processes: the socket address and key they connect with."""
        self._key = secrets.token_bytes(32)
        self._listener = Listener(family="AF_UNIX", authkey=self._key)
        self._acceptor = threading.Thread(
            target=self._accept, name="compactcheck-handout", daemon=True
        )
        self._acceptor.start()
        return str(self._listener.address), self._key

    def _accept(self) -> None:
        listener = self._listener
        assert listener is not None
        while True:
            try:
                connection = listener.accept()
            except OSError:
                return
            except Exception:  # a stranger's connection that failed the key: not a lane
                continue
            if self._listener is None:
                connection.close()
                return
            threading.Thread(
                target=self._serve, args=(connection,), name="compactcheck-lane", daemon=True
            ).start()

    def _serve(self, connection: Connection) -> None:
        """One remote lane: take what it sends back, answer with the next index."""
        taken: int | None = None
        try:
            with connection:
                while True:
                    done, more = connection.recv()
                    if done is not None:
                        self.give(done)
                        taken = None
                    taken = self.take() if more else None
                    connection.send(taken)
                    if taken is None:
                        return
        except (EOFError, OSError):
            if taken is not None:
                # Its process ended mid-shard (killed, out of memory): the shard is lost, said so.
                lost = LaneLostError(f"the worker process running shard {taken + 1} ended")
                self.give(Returned(taken, error=lost))

    def stop_listening(self) -> None:
        """Close the socket; a lane connecting later is refused."""
        listener, self._listener = self._listener, None
        if listener is None:
            return
        # Woken by a connection of its own: closed under it, a thread blocked in accept stays
        # blocked on a descriptor number the process may give to another file.
        with contextlib.suppress(OSError):
            Client(listener.address, family="AF_UNIX", authkey=self._key).close()
        if self._acceptor is not None:
            self._acceptor.join(timeout=1.0)
        listener.close()


class LocalLanes:
    """Threads of this process, each running shards a ``Handout`` gives it until none is left."""

    def __init__(
        self, handout: Handout, lanes: int, work: Work, prepare: Callable[[], None]
    ) -> None:
        self._lock = threading.Lock()
        # The lanes still running, by thread ident: told to stop together (``stop``).
        self._alive: set[int] = set()
        self._stopped = False
        for number in range(lanes):
            # Daemons: a lane blocked on a compactor that never answers must not hold the exit.
            threading.Thread(
                target=self._lane,
                args=(handout, work, prepare),
                name=f"compactcheck-lane-{number + 1}",
                daemon=True,
            ).start()

    def _lane(self, handout: Handout, work: Work, prepare: Callable[[], None]) -> None:
        with self._lock:
            self._alive.add(threading.get_ident())
            if self._stopped:
                interrupts.stop_threads([threading.get_ident()])
        try:
            prepare()
            _lane(handout._ask, work)
        finally:
            with self._lock:
                self._alive.discard(threading.get_ident())
                interrupts.release_thread()

    def stop(self) -> None:
        """Have every running lane's search stop at its next safe point (as a Ctrl-C would)."""
        with self._lock:
            self._stopped = True
            interrupts.stop_threads(self._alive)


def _portable(returned: Returned) -> Returned:
    """What a remote lane sends: an error that cannot be pickled, as its words."""
    if returned.error is None:
        return returned
    try:
        pickle.dumps(returned.error)
    except Exception:
        error = returned.error
        return Returned(returned.index, error=RuntimeError(f"{type(error).__name__}: {error}"))
    return returned


def remote_lanes(
    address: str, key: bytes, lanes: int, work: Work, prepare: Callable[[], None]
) -> None:
    """In a worker process: ``lanes`` threads, each connected to the parent's ``Handout`` and
    running the shards it hands out until none is left; returns once all are done."""

    def lane() -> None:
        prepare()
        with Client(address, family="AF_UNIX", authkey=key) as connection:

            def ask(done: Returned | None, more: bool) -> int | None:
                connection.send((None if done is None else _portable(done), more))
                index: int | None = connection.recv()
                return index

            _lane(ask, work)

    threads = [
        threading.Thread(target=lane, name=f"compactcheck-lane-{number + 1}", daemon=True)
        for number in range(lanes)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
