"""A backend: anything that compacts, answering per the protocol's JSON shapes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from compactcheck.base.implementation import Implementation
from compactcheck.invariants import View, json_copy

AnswerKind = Literal["result", "skipped", "errored"]

# What a backend is handed and answers, per view (protocol version 1; the JSON Schemas in
# compactcheck/schemas describe them):
#   messages  input {"messages": [chat dicts]}                 result {"messages": [chat dicts]}
#   snapshot  input {"compactorInput": CompactorInput JSON}     result {"draft": SnapshotDraft JSON}
#   session   input {"log": [session events], "mode": "manual" | "pressure" | "overflow"}
#             result {"appended": [session events]}  (the events the compaction appended)
VIEW_RESULT_KEY: dict[View, str] = {
    "messages": "messages",
    "snapshot": "draft",
    "session": "appended",
}


@dataclass(frozen=True)
class Answer:
    """One answer of a backend to one compact request."""

    kind: AnswerKind
    result: dict[str, Any] | None = None
    reason: str = ""
    timed_out: bool = False
    # The input as the compactor left it, when a backend in another process says it changed it
    # in place (the answer's ``inputAfter``); None otherwise.
    input_after: Any = None
    # Errored because the compactor answered, but not with what its view asks (a forgotten
    # return, JSON text, an invalid message list): a violation of call_answered even when every
    # call did so, where calls that all raised or crashed leave a run inconclusive.
    wrong_answer: bool = False

    @classmethod
    def ok(cls, result: dict[str, Any]) -> Answer:
        """A result."""
        return cls("result", result)

    @classmethod
    def skip(cls, reason: str) -> Answer:
        """The backend declined (it does not handle this input)."""
        return cls("skipped", reason=reason)

    @classmethod
    def error(cls, message: str, *, timed_out: bool = False, wrong_answer: bool = False) -> Answer:
        """The backend failed, did not answer in time, or answered what its view does not take."""
        return cls("errored", reason=message, timed_out=timed_out, wrong_answer=wrong_answer)


class Backend(Protocol):
    """A compactor behind the protocol's shapes: in-process or a subprocess."""

    @property
    def implementation(self) -> Implementation:
        """Name, version, language and the views it handles."""
        ...

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """Answer one compact request; never raises for a backend fault."""
        ...

    def stderr_tail(self) -> str:
        """What the backend wrote to stderr lately ('' in-process)."""
        ...

    def close(self) -> None:
        """Release the backend (stop a subprocess)."""
        ...


def handed(backend: object, value: Any) -> Any:
    """What to hand ``backend`` of JSON data the caller keeps and judges afterwards.

    A compactor in this process gets the very objects it is handed, and may edit them in place,
    so it gets a copy; a backend in another process (``sends_copies``) only serialises what it
    is handed, and the process boundary keeps the caller's data as it was, so it gets the data
    itself.
    """
    return value if getattr(backend, "sends_copies", False) else json_copy(value)
