"""A session log our own generator wrote: the mark that lets our own compactor skip re-checking it.

The generator writes session logs that keep every rule of the log grammar by construction (the
projection's property tests hold it to that). Our reference session compactor is handed such a
log as JSON, and parsing and checking it again costs more than the compaction itself; handed a
``GeneratedLog`` beside the JSON, it may adopt the events as they are instead.

Trust cannot leak from data: a ``GeneratedLog`` is a Python object, not JSON, so nothing read
from a file, the protocol or a worker can be one, and only the generator's projection makes one
(the constructor refuses any other caller). A compactor that honours it still compares the JSON
it was handed with the generator's events and checks whatever differs or follows them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

from compactcheck.invariants.session import SessionEvent

# Held by the generator's projection alone: the constructor's proof of who is calling.
_GENERATOR: Final = object()


class GeneratedLog:
    """The events of a session log as our generator wrote them (valid by construction)."""

    __slots__ = ("events",)

    events: tuple[SessionEvent, ...]

    def __init__(self, events: Sequence[SessionEvent], writer: object) -> None:
        if writer is not _GENERATOR:
            raise TypeError(
                "expected a GeneratedLog from compactcheck's own generator; found a call from "
                "elsewhere; hand a compactor the log as JSON and it checks it"
            )
        object.__setattr__(self, "events", tuple(events))

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"a GeneratedLog is read-only; cannot set {name}")

    def __repr__(self) -> str:
        return f"GeneratedLog({len(self.events)} events)"

    def __copy__(self) -> GeneratedLog:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> GeneratedLog:
        # Read-only, and it vouches for the events it holds, not for a copy's: shared as it is.
        return self

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        # The mark does not travel: unpickled anywhere, a history carries none (checked whole).
        return (_unmarked, ())

    def encoded(self) -> list[dict[str, Any]]:
        """The events as JSON-shaped dicts sharing their values (read them, never edit them)."""
        return [event.shared_json_data() for event in self.events]


def _unmarked() -> None:
    """What a pickled mark reads back as: no mark."""
    return None


def _written(events: Sequence[SessionEvent]) -> GeneratedLog:
    """The mark of a log the generator's projection wrote (for that projection alone)."""
    return GeneratedLog(events, _GENERATOR)
