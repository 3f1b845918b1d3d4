"""What one round of a case came to: its status, what went in and out, and the facts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from compactcheck.base.backend import Answer
from compactcheck.invariants import Facts, Finding, Invariant

# compacted: the answer changed the history; unchanged: it handed the history back as it was.
Status = Literal["compacted", "unchanged", "declined", "skipped", "errored", "unsafe"]


@dataclass
class RoundOutcome:
    """One round of a case: what went in, what came out, and the facts to judge it by."""

    round: int
    status: Status
    facts: Facts | None = None
    before: Any = None
    after: Any = None
    input: Any = None
    output: Any = None
    reason: str = ""
    timed_out: bool = False
    # The provider rules the input breaks (empty for input a provider accepts).
    input_problems: tuple[str, ...] = ()
    # A messages round in a provider format other than chat completions: the parsed requests
    # its structural laws read (``before`` and ``after`` are their chat readings).
    native_before: Any = None
    native_after: Any = None
    # The target answered, but not what the view takes (see Answer.wrong_answer).
    wrong_answer: bool = False

    @property
    def judged(self) -> bool:
        """Whether the round compacted: changed the history, so every law applies."""
        return self.status == "compacted"

    @property
    def answered(self) -> bool:
        """Whether the target gave a valid answer, changed or not."""
        return self.status in ("compacted", "unchanged")

    def judges(self, law: Invariant) -> bool:
        """Whether ``law`` applies to this round: it compacted, or the law judges any answer."""
        return self.judged or (self.status == "unchanged" and not law.requires_change)

    def judge(self, law: Invariant) -> Finding:
        """One law's finding on this round (only where the law applies)."""
        if self.facts is None or not self.judges(law):
            raise ValueError(f"round {self.round} was {self.status}; {law.id} has nothing to judge")
        if law.formats:
            return law.check(self.native_before, self.native_after, self.facts)
        return law.check(self.before, self.after, self.facts)


class BackendFaultError(Exception):
    """A backend behind JSON answered skipped or errored."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.reason)
        self.answer = answer


def answer_problem(answer: Answer) -> RoundOutcome | None:
    """The outcome of an answer that is no result (skipped or errored), else None."""
    if answer.kind == "skipped":
        return RoundOutcome(0, "skipped", reason=answer.reason)
    if answer.kind == "errored":
        return RoundOutcome(
            0,
            "errored",
            reason=answer.reason,
            timed_out=answer.timed_out,
            wrong_answer=answer.wrong_answer,
        )
    return None
