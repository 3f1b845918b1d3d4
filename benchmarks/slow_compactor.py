"""A compactor that waits 100 ms a call, as one that asks a model to summarise does, then
compacts as the reference messages compactor does: a target whose time is almost all waiting.

Named as ``py:benchmarks/slow_compactor.py:compact``. ``COMPACT_WAIT`` sets the wait in seconds;
``COMPACT_SIZES`` names a file it adds the size of each history it is handed to (one line a
call, from whichever process), so that a benchmark can print the median size beside a rate.
"""

from __future__ import annotations

import os
import time
from typing import Any

from compactcheck.reference_engine.messages import reference_messages

# The wait of one call, in seconds: about what a summary from a hosted model costs, often less.
WAIT = float(os.environ.get("COMPACT_WAIT", "0.1"))
SIZES = os.environ.get("COMPACT_SIZES", "")

_REFERENCE = reference_messages()


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reference compaction of ``messages``, after a wait of ``WAIT`` seconds."""
    if SIZES:
        with open(SIZES, "a", encoding="utf-8") as sizes:
            sizes.write(f"{len(messages)}\n")
    time.sleep(WAIT)
    return _REFERENCE(messages)
