"""How a target's calls are made: the time each may take, and where a ``py:`` compactor runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DEFAULT_TIMEOUT = 30.0
# Address space per isolated worker. Generous, because importing a large library reserves much
# more virtual memory than it uses; a runaway compactor still meets it long before the machine's
# out-of-memory killer would.
DEFAULT_MEMORY_LIMIT_MB = 4096

# Where a target's compactor runs, as reports name it.
Isolation = Literal["worker process", "harness process", "in-process", "built-in"]


@dataclass(frozen=True)
class Calls:
    """The timeout of each call, and whether ``py:`` targets run in an isolated worker process
    (the default: a crash, exit, hang or memory bomb there is a finding of that call) or in
    this process (``in_process``: faster, and a crash there ends the run)."""

    timeout: float = DEFAULT_TIMEOUT
    in_process: bool = False
    # MB of address space per worker; 0 sets no limit.
    memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB
