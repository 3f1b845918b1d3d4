"""Answers ahead: runs whose requests are known beforehand, their round trips pipelined.

A replay of stored inputs (the crash corpus, the re-runs that tell a flaky failure from a
deterministic one, recorded transcripts handed over whole) hands a target requests that do not
depend on one another. ``answered_ahead`` runs each of them once with the backend only noting
what it would send, sends all of that over the harness in one pipelined batch, and then lets the
runs go for real: each call asking a noted request takes its answer, so a run is judged exactly
as it would be one call at a time. A run whose later calls depend on an earlier answer (a search
round by round) is not one of these: its other calls simply go to the harness as usual.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.base.backend import Backend


@contextlib.contextmanager
def answered_ahead(backend: Backend | None, runs: Sequence[Callable[[], Any]]) -> Iterator[None]:
    """Within: the requests ``runs`` make are answered from one pipelined batch, sent on entry.

    Only a backend in another process pipelines; with any other (or fewer than two requests)
    this does nothing. The same callable given several times is noted once and its requests
    sent as many times (the re-runs of one failure). A run that raises while noted is run again
    within, where it raises for its caller.
    """
    if not isinstance(backend, CommandBackend) or len(runs) < 2:
        yield
        return
    noted: dict[int, list[tuple[Any, dict[str, Any]]]] = {}
    with backend.noting() as requests:
        for run in runs:
            if id(run) in noted:
                continue
            start = len(requests)
            with contextlib.suppress(Exception):
                run()
            noted[id(run)] = requests[start:]
    batch = [request for run in runs for request in noted[id(run)]]
    if len(batch) < 2:
        yield
        return
    with backend.ahead(batch):
        yield
