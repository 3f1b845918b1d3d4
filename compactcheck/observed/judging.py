"""Judge compactions that already happened: one (before, after) pair of any view and format.

This is what ``compactcheck.check``, ``compactcheck check``, ``compactcheck audit`` and the
runtime guard share. A pair is plain JSON data (or parsed models):

- messages view: chat completions (a list of chat dicts, or ``{"messages": [...]}``), or a
  provider request (Anthropic, OpenAI Responses, Gemini: the request object, or its bare
  history list), named or detected (``compactcheck.invariants.formats.detect_format``);
- snapshot view: ``before`` is the compactor input as the protocol hands it (``{"state",
  "events"}``, or ``{"compactorInput": ...}``), ``after`` the draft the compactor answered
  (``{"draft": ...}`` or the draft itself); the shared frame seals it, as in a run;
- session view: ``before`` is ``{"log", "mode"}``, ``after`` the compactor's answer.

Facts the caller does not declare are inferred from the history
(``compactcheck.invariants.inference``) and named in the judgement; a violation judged on them says
so in its ``because``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from compactcheck.base.backend import Answer
from compactcheck.base.errors import CompactcheckError, one_line
from compactcheck.base.implementation import Implementation
from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts, Finding, Invariant, View, Violation, parse_messages
from compactcheck.invariants.facts import Inference
from compactcheck.invariants.formats import (
    CHAT,
    Format,
    NativeRequest,
    as_request,
    check_format,
    detect_format,
    parse_request,
    read,
)
from compactcheck.invariants.inference import infer_facts, inferred_note
from compactcheck.invariants.laws.messages.content import fact_rulings
from compactcheck.invariants.laws.messages.size import message_size
from compactcheck.invariants.messages import ChatMessage
from compactcheck.invariants.rulings import FactRuling
from compactcheck.invariants.state import AgentState

if TYPE_CHECKING:
    # Only a type here: the harness package loads Hypothesis, which judging messages never needs.
    from compactcheck.harness.outcome import RoundOutcome

_Parsed = TypeVar("_Parsed")


class PairError(CompactcheckError, ValueError):
    """A recorded pair that cannot be judged (not valid data of its view or format)."""

    # Which side is not valid, "before" or "after" ("" when it is not one side's fault), so
    # that a caller can name the file it read that side from.
    side: str = ""


@dataclass(frozen=True)
class Judgement:
    """Every selected law's finding on one (before, after) pair, and the facts judged by."""

    view: View
    findings: tuple[Finding, ...]
    facts: Facts | None = None
    format: Format | None = None
    rulings: tuple[FactRuling, ...] = ()
    """What the output did to the goal and each constraint (messages view, tokens reading)."""
    sizes: tuple[int, int] | None = None
    """Characters of the input and of the output, as the budget law counts them (messages
    view; None for the others)."""

    @property
    def violations(self) -> list[Violation]:
        """Every violation, law by law."""
        return [violation for finding in self.findings for violation in finding.violations]

    @property
    def holds(self) -> bool:
        """Whether no law was broken."""
        return not self.violations

    @property
    def inferred(self) -> tuple[str, ...]:
        """The facts read off the history rather than declared (empty when all were declared)."""
        return self.facts.inferred if self.facts is not None else ()

    @property
    def inferences(self) -> tuple[Inference, ...]:
        """Each inferred fact, with the message it was read from, how, and how surely."""
        return self.facts.inferences if self.facts is not None else ()

    def raise_for_violations(self) -> None:
        """Raise ``ViolationError`` naming each broken law and why, if any law was broken."""
        if self.violations:
            raise ViolationError(self)


class ViolationError(CompactcheckError, AssertionError):
    """A compaction broke at least one law; ``judgement`` has every finding."""

    def __init__(self, judgement: Judgement) -> None:
        lines = [f"{v.invariant}: {v.because}" for v in judgement.violations]
        super().__init__(f"{len(lines)} law(s) broken: " + "; ".join(lines))
        self.judgement = judgement


@dataclass(frozen=True)
class MessagesPair:
    """A messages pair, parsed: the chat readings and, for a provider format, the requests."""

    format: Format
    before: tuple[ChatMessage, ...]
    after: tuple[ChatMessage, ...]
    native_before: NativeRequest | None = None
    native_after: NativeRequest | None = None


def parse_messages_pair(before: Any, after: Any, format: Format | None = None) -> MessagesPair:
    """Both sides of a messages compaction in one format (``format``, or detected from both)."""
    chosen = check_format(format) if format is not None else _detect(before, after)
    if chosen == CHAT:
        return MessagesPair(
            chosen, _side(_chat, before, "before", chosen), _side(_chat, after, "after", chosen)
        )
    native_before = _side(_native(chosen), before, "before", chosen)
    native_after = _side(_native(chosen), after, "after", chosen)
    return MessagesPair(
        chosen, read(native_before), read(native_after), native_before, native_after
    )


def _native(chosen: Format) -> Callable[[Any], NativeRequest]:
    return lambda data: parse_request(chosen, as_request(chosen, data))


def _side(parse: Callable[[Any], _Parsed], data: Any, side: str, chosen: Format) -> _Parsed:
    """One side of a pair parsed; a PairError that says which side is not valid."""
    try:
        return parse(data)
    except ValidationError as error:
        failure = PairError(f"the {side} side is not valid {chosen} data: {one_line(error)}")
        failure.side = side
        raise failure from None


def _detect(before: Any, after: Any) -> Format:
    found = detect_format(before)
    if found is None:
        found = detect_format(after)
    if found is None:
        raise PairError(
            "cannot tell the format of this pair (name it: openai-chat, anthropic, "
            "openai-responses or gemini)"
        )
    return found


def _chat(data: Any) -> tuple[ChatMessage, ...]:
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if isinstance(data, tuple) and all(isinstance(m, ChatMessage) for m in data):
        return data
    return parse_messages(data)


def judge_messages(
    pair: MessagesPair, laws: Sequence[Invariant[Any, Any]], facts: Facts
) -> tuple[Finding, ...]:
    """Every law's finding on a parsed messages pair: structural laws on the requests."""
    findings = [
        law.check(pair.native_before, pair.native_after, facts)
        if law.formats and pair.native_before is not None
        else law.check(pair.before, pair.after, facts)
        for law in laws
    ]
    return annotated(findings, facts)


def annotated(findings: Sequence[Finding], facts: Facts) -> tuple[Finding, ...]:
    """Findings whose violations say when they were judged on inferred facts."""
    if not facts.inferred:
        return tuple(findings)
    out: list[Finding] = []
    for finding in findings:
        if not finding.violations:
            out.append(finding)
            continue
        marked = tuple(_marked(violation, facts) for violation in finding.violations)
        out.append(replace(finding, violations=marked))
    return tuple(out)


if TYPE_CHECKING:
    from compactcheck.models import MeteredModel


def _marked(violation: Violation, facts: Facts) -> Violation:
    note = inferred_note(facts, violation.invariant, violation.because)
    return violation if note is None else replace(violation, because=f"{violation.because}; {note}")


def check_pair(
    before: Any,
    after: Any,
    facts: Facts | dict[str, Any] | None = None,
    *,
    view: View = "messages",
    format: Format | None = None,
    selection: Selection | None = None,
    judge: MeteredModel | None = None,
) -> Judgement:
    """Judge one recorded compaction; PairError when the data is not a pair of that view.

    With a ``judge`` (``compactcheck.models.judge.judge_slot(...).open()``), the rulings left
    for review are settled by it: a loss becomes a violation, a faithful one passes; a certain
    ruling is never asked about.
    """
    chosen = selection or Selection(None, ())
    chosen.check([view])
    try:
        if view == "messages":
            pair = parse_messages_pair(before, after, format)
            known = infer_facts(pair.before, facts)
            laws = chosen.laws(view, pair.format)
            findings = judge_messages(pair, laws, known)
            if judge is not None:
                # Only with a judge: a pair check in production loads none of the models.
                from compactcheck.models.judge import settle_findings

                findings = settle_findings(findings, judge)
            ruled = (
                fact_rulings(pair.before, pair.after, known) if known.reading == "tokens" else ()
            )
            sizes = (
                message_size(pair.before, "characters"),
                message_size(pair.after, "characters"),
            )
            return Judgement(view, findings, known, pair.format, ruled, sizes)
        outcome = _replayed(view, before, after, facts)
    except ValidationError as error:
        raise PairError(f"{view}: {one_line(error)}") from None
    known = outcome.facts if outcome.facts is not None else Facts(goal="")
    findings = tuple(law.check(outcome.before, outcome.after, known) for law in chosen.laws(view))
    return Judgement(view, findings, known)


class _Replay:
    """A backend that answers one recorded answer, so that a view's driver can judge it."""

    def __init__(self, view: View, answer: dict[str, Any]) -> None:
        self._implementation = Implementation(name="recorded", views=[view])
        self.answer = answer

    @property
    def implementation(self) -> Implementation:
        """A recorded compactor of one view."""
        return self._implementation

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """The recorded answer, whatever the payload."""
        del view, payload
        return Answer.ok(self.answer)

    def stderr_tail(self) -> str:
        """Nothing: it runs no process."""
        return ""

    def close(self) -> None:
        """Nothing to release."""


def _replayed(
    view: View, before: Any, after: Any, facts: Facts | dict[str, Any] | None
) -> RoundOutcome:
    """The driver's round on a recorded input, answered by the recorded output."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        raise PairError(f"a {view} pair is two JSON objects (the input handed over, the answer)")
    if view == "snapshot":
        from compactcheck.harness.snapshot import BackendCompactor, SnapshotDriver
        from compactcheck.invariants import AgentEvent
        from compactcheck.reference_engine.shared_semantics import SnapshotFrame

        given = before.get("compactorInput", before)
        if not isinstance(given, dict) or "state" not in given:
            raise PairError('a snapshot input holds "state" and "events"')
        state = AgentState.from_json_data(given["state"])
        events = tuple(AgentEvent.from_json_data(e) for e in given.get("events", []))
        answer = after if "draft" in after else {"draft": after}
        known = _declared(facts) or Facts.of_state(state)
        # A recorded compaction is judged even when it did not shrink the context (a run's frame
        # would decline it): that is what the progress law is for.
        frame = SnapshotFrame(
            compactor=BackendCompactor(_Replay(view, answer)), decline_without_progress=False
        )
        driver = SnapshotDriver(frame)
        outcome, _ = driver.one(1, state, events, known, 0)
    else:
        from compactcheck.harness.session import SessionDriver, backend_session_compactor
        from compactcheck.invariants.session.exchange import parse_events

        raw = before.get("log")
        if not isinstance(raw, list):
            raise PairError('a session input holds "log", the list of session events')
        log = parse_events(raw, "the session input")
        mode = before.get("mode", "manual")
        known = _declared(facts) or Facts(goal="")
        driver_s = SessionDriver(backend_session_compactor(_Replay(view, after)))
        outcome = driver_s.one(1, log, mode, known)
    if outcome.status != "compacted":
        reason = f": {outcome.reason}" if outcome.reason else ""
        raise PairError(
            f"the recorded {view} answer was not a compaction ({outcome.status}{reason})"
        )
    return outcome


def _declared(facts: Facts | dict[str, Any] | None) -> Facts | None:
    if facts is None or isinstance(facts, Facts):
        return facts
    return Facts.model_validate(facts)


__all__ = [
    "Judgement",
    "MessagesPair",
    "PairError",
    "ViolationError",
    "annotated",
    "check_pair",
    "judge_messages",
    "parse_messages_pair",
]
