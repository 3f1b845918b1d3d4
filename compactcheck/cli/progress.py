"""The console's view of a run: a status line that follows the engine's events."""

from __future__ import annotations

from rich.console import Console
from rich.status import Status

from compactcheck.engine.events import Event, Interrupted, RunStarted, TargetFinished, describe
from compactcheck.report import untrusted


class Progress:
    """Shows each event worth a line in a rich status line; says so when a run is interrupted."""

    def __init__(self, console: Console, status: Status, interrupted: str) -> None:
        self.console = console
        self.status = status
        # What to say on an interrupt: where the partial report goes.
        self.interrupted = interrupted
        self.jobs = 0
        self.finished = 0

    def __call__(self, event: Event) -> None:
        """Handle one event."""
        if isinstance(event, RunStarted):
            self.jobs = event.jobs
            if event.parts > 1:
                self.console.print(
                    f"{_where(event)}: each target cut into {event.parts} shards "
                    f"({event.jobs} jobs)",
                    highlight=False,
                )
        elif isinstance(event, Interrupted):
            self.console.print(f"[yellow]{self.interrupted}[/]")
            return
        line = describe(event)
        if isinstance(event, TargetFinished) and self.jobs > 1:
            self.finished += 1
            line += f" ({self.finished} of {self.jobs} jobs)"
        if line:
            self.status.update(untrusted.safe_line(line))


def _where(event: RunStarted) -> str:
    """Where a run's shards run: ``8 workers``, or ``32 in flight (16 threads in each of 2
    workers)``."""
    if event.in_flight <= event.workers:
        return f"{event.workers} workers"
    if event.workers == 1:
        return f"{event.in_flight} in flight (threads of this process)"
    each = -(-event.in_flight // event.workers)
    return f"{event.in_flight} in flight ({each} threads in each of {event.workers} workers)"
