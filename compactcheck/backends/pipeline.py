"""A window of pipelined requests over one harness process: several in flight, answers by seq.

The window writes request lines while it reads answer lines, from one loop over non-blocking
pipes, so that a harness which stops reading while its stdout fills (it is writing a large
answer) never deadlocks against the writer. Every answer line resolves one request in flight
(its own, or the oldest one when it cannot be matched) or is dropped (a second answer to a
request already answered), and only a line that resolves one resets the deadline, so a batch
always ends.

Deadlines follow the one-at-a-time path: a harness fails the deadline when it writes no answer
for ``timeout`` seconds while a request is in flight. A harness that answers in order therefore
gives each request the whole timeout, however many wait behind it.
"""

from __future__ import annotations

import selectors
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from compactcheck.backends.harness_process import (
    SLICE,
    DeadlineError,
    HarnessProcess,
    OversizeError,
)
from compactcheck.base import interrupts

# How many requests a harness is handed before its first answer: enough to hide a round trip
# behind the compactor's work, few enough that a crash leaves little to re-send.
DEFAULT_WINDOW = 16


@dataclass
class Pending:
    """One request of a batch: where its answer goes, its seq, and how to write its line.

    The line is built when the window first sends it (and kept for a re-send), so that
    building the next requests overlaps the harness's work on the ones in flight.
    """

    index: int
    seq: int
    build: Callable[[], bytes]
    line: bytes | None = None

    def encoded(self) -> bytes:
        """The request line, built once."""
        if self.line is None:
            self.line = self.build()
        return self.line


class Window:
    """The requests in flight over one harness process (at most ``size``), oldest first."""

    def __init__(self, process: HarnessProcess, size: int, timeout: float) -> None:
        self.process = process
        self.size = max(1, size)
        self.timeout = timeout
        # seq -> request, in the order the requests were sent.
        self.flight: dict[int, Pending] = {}
        self._writing: memoryview | None = None
        # When the harness last showed progress: an answer, or a request sent to an idle one.
        self._since = time.monotonic()

    def oldest(self) -> Pending | None:
        """The request that has waited longest (the one a harness answering in order is on)."""
        return next(iter(self.flight.values()), None)

    def resolve(self, seq: int) -> Pending:
        """Take a request out of flight once it has its answer."""
        return self.flight.pop(seq)

    def abandon(self) -> list[Pending]:
        """Every request still in flight, oldest first, and the window emptied (for re-sending
        on a restarted harness)."""
        left = list(self.flight.values())
        self.flight.clear()
        self._writing = None
        return left

    def run(self, queue: deque[Pending], answered: Callable[[bytes], bool]) -> None:
        """Send ``queue`` and hand each answer line to ``answered`` until nothing is left.

        ``answered`` resolves the request in flight a line answers (returning True) or drops
        the line (False). Raises DeadlineError,
        ExitedError or OversizeError as ``HarnessProcess.exchange`` does; the window keeps its
        state, so that the caller can charge the request concerned and call ``run`` again.
        """
        process = self.process
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout_fd, selectors.EVENT_READ)
            writing_registered = False
            while queue or self.flight:
                while (line := self._line()) is not None:
                    if answered(line):
                        self._since = time.monotonic()
                if not queue and not self.flight:
                    return
                wants_write = self._writing is not None or (
                    bool(queue) and len(self.flight) < self.size
                )
                if wants_write != writing_registered:
                    if wants_write:
                        selector.register(process.stdin_fd, selectors.EVENT_WRITE)
                    else:
                        selector.unregister(process.stdin_fd)
                    writing_registered = wants_write
                remaining = self._since + self.timeout - time.monotonic()
                if self.flight and remaining <= 0:
                    if process.discarding:
                        raise OversizeError(resynced=False)
                    raise DeadlineError
                interrupts.check()
                wait = min(remaining, SLICE) if self.flight else SLICE
                for key, _ in selector.select(wait):
                    if key.fd == process.stdin_fd:
                        self._write(queue)
                    else:
                        process.read_more()

    def _line(self) -> bytes | None:
        try:
            return self.process.take_line()
        except OversizeError as oversize:
            if oversize.resynced:
                # A whole line came (past the cap): the request behind it starts its clock.
                self._since = time.monotonic()
            raise

    def _write(self, queue: deque[Pending]) -> None:
        # As many lines as the pipe takes now (a wide pipe takes a whole window), so that
        # the loop is not woken once per request.
        while True:
            if self._writing is None:
                if not queue or len(self.flight) >= self.size:
                    return
                line = queue[0].encoded()
                request = queue.popleft()
                if not self.flight:
                    # An idle harness starts its clock with this request.
                    self._since = time.monotonic()
                self.flight[request.seq] = request
                self._writing = memoryview(line)
            written = self.process.write_some(self._writing)
            self._writing = self._writing[written:] or None
            if self._writing is not None:
                return
