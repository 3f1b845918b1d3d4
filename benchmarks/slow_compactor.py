"""A compactor that waits 100 ms a call, as one that asks a model to summarise does, then
compacts as the reference messages compactor does: a target whose time is almost all waiting.

Named as ``py:benchmarks/slow_compactor.py:compact`` (the wait is ``COMPACT_WAIT`` seconds).
"""

from __future__ import annotations

import os
import time
from typing import Any

from compactcheck.reference_engine.messages import reference_messages

# The wait of one call, in seconds: about what a summary from a hosted model costs, often less.
WAIT = float(os.environ.get("COMPACT_WAIT", "0.1"))

_REFERENCE = reference_messages()


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reference compaction of ``messages``, after a wait of ``WAIT`` seconds."""
    time.sleep(WAIT)
    return _REFERENCE(messages)
