"""The shape of a session compactor, as the harness calls it and the reference engine answers.

A session compactor is a callable from a JSON payload to a JSON answer (protocol version 1)::

    payload {"log": [session events], "mode": "manual" | "pressure" | "overflow"}
    answer  {"appended": [the session events the compaction appended]}   a result
            {"skipped": "why it declined"}                                 a decline

A compactor that raises has errored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SessionCompactor = Callable[[dict[str, Any]], dict[str, Any]]
