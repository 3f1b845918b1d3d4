"""How a target's calls are made: the time each may take, and where a ``py:`` compactor runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

# Named once, in the options table, for every front end and backend.
from compactcheck.options import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIMEOUT

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
    # (spec, socket address) of the template processes a run with workers started for its
    # py: targets (``backends.template``): its workers fork their isolated workers from them.
    templates: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> Calls:
        """The calls that checked option values (``compactcheck.options`` keys) ask for."""
        return cls(
            timeout=values["timeout"],
            in_process=bool(values["in_process"]),
            memory_limit_mb=values["memory_limit"],
        )


__all__ = ["DEFAULT_MEMORY_LIMIT_MB", "DEFAULT_TIMEOUT", "Calls", "Isolation"]
