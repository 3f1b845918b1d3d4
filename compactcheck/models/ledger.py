"""A run's spend on its model: the calls and tokens every target, shard and worker sent, against
the run's caps.

A ledger without a file counts in memory, for one process. With a file (``ModelSlot.shared``
names one per run, in the temporary folder) every process of the run counts in it under an
exclusive lock, so that ``--workers`` share one cap instead of each having all of it. A call is
reserved before it is sent, so the cap of calls is never exceeded; the tokens of an answer are
known only once it is back, so calls already in flight (one per worker at most) may carry the
count past the cap of tokens, and no call starts after it is reached. Lanes (threads) of one
process each open the file for themselves, so that its lock holds between them as between
processes; a ledger object used from several threads counts under a lock of its own too.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


def run_ledger() -> Path:
    """A fresh ledger file for one run (created on first use), in the temporary folder: not
    beside the model cache, which is committed.

    The process that names it removes it when it exits (worker processes it hands the path to
    never do: they leave through ``os._exit``), so ledgers do not pile up in the folder.
    """
    path = Path(tempfile.gettempdir()) / "compactcheck-ledgers" / f"{uuid.uuid4().hex}.json"
    atexit.register(path.unlink, missing_ok=True)
    return path


@dataclass(frozen=True)
class Spend:
    """Calls sent and the tokens they took."""

    calls: int = 0
    tokens: int = 0


class Ledger:
    """The calls and tokens a run may still send, shared through ``path`` when it has one."""

    def __init__(
        self, max_calls: int | None = None, max_tokens: int | None = None, path: Path | None = None
    ) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.path = path
        self._spend = Spend()
        # A reservation is read, checked and written as one step, in whichever thread.
        self._lock = threading.Lock()

    def reserve(self) -> str:
        """Count one call about to be sent; '' when it may be, else why not (nothing counted)."""
        reason = ""
        with self._open() as (spend, write):
            if self.max_calls is not None and spend.calls >= self.max_calls:
                reason = f"model call cap of {self.max_calls} reached"
            elif self.max_tokens is not None and spend.tokens >= self.max_tokens:
                reason = (
                    f"model token cap of {self.max_tokens} reached ({spend.tokens} tokens used)"
                )
            else:
                write(Spend(spend.calls + 1, spend.tokens))
        return reason

    def add_tokens(self, tokens: int) -> None:
        """Count the tokens of an answer that came back."""
        with self._open() as (spend, write):
            write(Spend(spend.calls, spend.tokens + tokens))

    def spent(self) -> Spend:
        """What the run has sent so far."""
        with self._open() as (spend, _):
            return spend

    @contextlib.contextmanager
    def _open(self) -> Iterator[tuple[Spend, Callable[[Spend], None]]]:
        with self._lock:
            if self.path is None:
                yield self._spend, self._keep
                return
            with self._file() as opened:
                yield opened

    @contextlib.contextmanager
    def _file(self) -> Iterator[tuple[Spend, Callable[[Spend], None]]]:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            # Released when the descriptor closes, whatever happens in between.
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield _read(descriptor), lambda spend: _write(descriptor, spend)
        finally:
            os.close(descriptor)

    def _keep(self, spend: Spend) -> None:
        self._spend = spend


def _read(descriptor: int) -> Spend:
    text = b""
    while chunk := os.read(descriptor, 4096):
        text += chunk
    if not text.strip():
        return Spend()
    data = json.loads(text)
    return Spend(int(data["calls"]), int(data["tokens"]))


def _write(descriptor: int, spend: Spend) -> None:
    os.lseek(descriptor, 0, os.SEEK_SET)
    os.ftruncate(descriptor, 0)
    os.write(descriptor, json.dumps({"calls": spend.calls, "tokens": spend.tokens}).encode())
