"""The shape of a session compactor, as the harness calls it and the reference engine answers.

A session compactor is a callable from a JSON payload to a JSON answer (protocol version 1)::

    payload {"log": [session events], "mode": "manual" | "pressure" | "overflow"}
    answer  {"appended": [the session events the compaction appended]}   a result
            {"skipped": "why it declined"}                                 a decline

A compactor that raises has errored. One of ours may also answer ``compact_generated`` (a
``GeneratedCompactor``): the same call, with the generator's mark on the log beside the payload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from compactcheck.strategies.generated_log import GeneratedLog

SessionCompactor = Callable[[dict[str, Any]], dict[str, Any]]


@runtime_checkable
class GeneratedCompactor(Protocol):
    """A session compactor that may adopt a log our generator wrote without checking it again.

    ``compact_generated(payload, generated)`` answers exactly what ``compactor(payload)`` would;
    ``generated`` only spares it the parsing and checking of the events it vouches for.
    """

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Compact the payload's log, checking all of it."""
        ...

    def compact_generated(self, payload: dict[str, Any], generated: GeneratedLog) -> dict[str, Any]:
        """Compact the payload's log, adopting the part ``generated`` wrote as it is."""
        ...
