"""The isolated worker processes alive on this machine, for tests that no run leaves one behind."""

from __future__ import annotations

from pathlib import Path


def isolated_processes(spec: str) -> list[int]:
    """The pids of the isolated workers (and templates) serving ``spec``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"compactcheck.backends.isolated" in command and spec.encode() in command:
                found.append(int(entry.name))
    return found
