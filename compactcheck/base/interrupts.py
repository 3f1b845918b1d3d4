"""Ctrl-C and SIGTERM during a run: heard once, acted on where unwinding is safe.

Python raises KeyboardInterrupt wherever the main thread happens to be when SIGINT arrives. In
the middle of Hypothesis's engine that can leave it in a broken state (an internal assertion
then escapes instead of the interrupt), and inside a gc callback or a finaliser the exception is
printed as "ignored" and lost, so that the run goes on. While a run listens (``listening``), the
first signal is only recorded; the runner calls ``check`` between examples and while it waits
for a backend, and raises the interrupt there. A second signal interrupts at once, wherever the
run is, for a backend that never returns.

Signals reach the main thread only, and ``listening`` is a no-op elsewhere; threads that search
(the lanes of ``--in-flight``) act on a signal through the same ``check``, which reads the one
record every thread shares. A run can also stop its own lanes without a signal
(``stop_threads``): ``check`` then raises in those threads alone.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import FrameType

# Signals heard since the outermost ``listening`` began (empty when nobody listens).
_heard: list[int] = []
_depth = 0
# Threads their run told to stop (its lanes, on an error or an early close), by ident.
_stopping: set[int] = set()


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: handled like Ctrl-C, so the partial report is still written."""


def _interrupt(signum: int) -> KeyboardInterrupt:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _hear(signum: int, frame: FrameType | None) -> None:
    insisted = bool(_heard)
    _heard.append(signum)
    if insisted:
        raise _interrupt(signum)


def note(signum: int) -> None:
    """Record a signal for ``check`` without raising (a handler of one's own may call this)."""
    _heard.append(signum)


def heard() -> bool:
    """Whether a signal asked the run to stop (or its run told this thread to stop)."""
    return bool(_heard) or (bool(_stopping) and threading.get_ident() in _stopping)


def check() -> None:
    """Raise the interrupt that a signal asked for, if one did (else nothing); in a thread its
    run told to stop, a KeyboardInterrupt."""
    if _heard:
        raise _interrupt(_heard[0])
    if _stopping and threading.get_ident() in _stopping:
        raise KeyboardInterrupt


def stop_threads(idents: Iterable[int]) -> None:
    """Have ``check`` raise in these threads (a run's own lanes) from now on."""
    _stopping.update(idents)


def release_thread() -> None:
    """Forget that this thread was told to stop (a lane, as it ends)."""
    _stopping.discard(threading.get_ident())


@contextmanager
def listening() -> Iterator[None]:
    """Record SIGINT and SIGTERM for ``check`` (main thread only; elsewhere a no-op).

    SIGINT is taken over only from Python's default handler: a caller that ignores it, or
    handles it itself, keeps it that way.
    """
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth == 0:
        _heard.clear()
    previous_term = signal.signal(signal.SIGTERM, _hear)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:
        signal.signal(signal.SIGINT, _hear)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        signal.signal(signal.SIGTERM, previous_term)
        if previous_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_int)
        if _depth == 0:
            _heard.clear()
