"""The mender: repair a compactor's answer until every law holds, or say why it cannot.

One broken law at a time, in a fixed order (what brings messages back first, then what takes
stray halves out), each of its repairs proposes an edit; every edit is judged again by the same
laws, and the one that mends that law with the fewest violations left and the smallest answer
is kept. The answer is returned only when every law holds on it, it is no larger than the input
(a lawful answer larger than the input is worse than the input itself), and it fits the declared
budget; otherwise the mender says why and returns no answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts, Finding, Invariant
from compactcheck.invariants.facts import Counter
from compactcheck.invariants.formats import CHAT, Format, NativeRequest
from compactcheck.invariants.inference import infer_facts
from compactcheck.observed.judging import MessagesPair, judge_messages, parse_messages_pair
from compactcheck.observed.repair.catalogue import ORDER, REPAIRS
from compactcheck.observed.repair.change import Change, Edit
from compactcheck.observed.repair.side import Side, canonical, shaped, side_of

if TYPE_CHECKING:
    from compactcheck.models import MeteredModel

LOGGER = logging.getLogger("compactcheck.repair")

# Repairs one answer may need: each mends one law, and a repair may leave work for another (a
# goal message brought back with a tool result in it, whose call is then brought back too).
MAX_CHANGES = 16


@dataclass(frozen=True)
class Mended:
    """What the mender made of one answer: the lawful answer, or why there is none."""

    answer: Any
    """The repaired answer, in the shape the compactor answered (None when none was found)."""
    changes: tuple[Change, ...]
    findings: tuple[Finding, ...]
    """Every law's finding on the last answer tried (the repaired one, when there is one)."""
    reason: str
    """Why no answer is returned ('' when one is)."""
    counter: Counter
    size_input: int
    size_answer: int
    size_repaired: int
    tried: Any = None
    """The last answer tried, in the compactor's shape (the repaired one even when it is
    refused for its size; None when a bare list cannot hold it)."""

    @property
    def lawful(self) -> bool:
        """Whether a repaired answer was found (and returned)."""
        return self.answer is not None

    @property
    def mends_every_law(self) -> bool:
        """Whether every law holds on the last answer tried, whatever its size."""
        return not self.broken

    @property
    def broken(self) -> list[str]:
        """The laws still broken on the last answer tried."""
        return [finding.invariant for finding in self.findings if finding.violations]


class _Judge:
    """The laws of one pair, judging any answer to its input with the same facts."""

    def __init__(
        self,
        before: Side,
        facts: Facts,
        laws: list[Invariant[Any, Any]],
        judge: MeteredModel | None = None,
    ) -> None:
        self.before = before
        self.facts = facts
        self.laws = laws
        self.judge = judge
        parsed = before.parsed
        self.native: NativeRequest | None = None if isinstance(parsed, tuple) else parsed

    def __call__(self, after: Side) -> tuple[Finding, ...]:
        parsed = after.parsed
        pair = MessagesPair(
            after.format,
            self.before.reading,
            after.reading,
            self.native,
            None if isinstance(parsed, tuple) else parsed,
        )
        findings = judge_messages(pair, self.laws, self.facts)
        if self.judge is None:
            return findings
        # The guard's judge settles each answer tried as it settled the first one.
        from compactcheck.models.judge import settle_findings

        return settle_findings(findings, self.judge)


def _violations(findings: tuple[Finding, ...], law: str | None = None) -> int:
    return sum(len(f.violations) for f in findings if law is None or f.invariant == law)


def _order(findings: tuple[Finding, ...]) -> list[str]:
    broken = [finding.invariant for finding in findings if finding.violations]
    ranked = {law: at for at, law in enumerate(ORDER)}
    return sorted(broken, key=lambda law: ranked.get(law, len(ranked)))


@dataclass(frozen=True)
class _Step:
    findings: tuple[Finding, ...]
    size: int
    edit: Edit
    repair: str


def _step(
    judge: _Judge, current: Side, findings: tuple[Finding, ...], seen: set[str], counter: Counter
) -> tuple[str, _Step] | None:
    """The best edit of the first broken law that has one, and that law."""
    for law in _order(findings):
        before_count = _violations(findings, law)
        options: list[_Step] = []
        for repair in REPAIRS.get(law, ()):
            try:
                edit = repair(judge.before, current, judge.facts)
                if edit is None or canonical(edit.side.request) in seen:
                    continue
                judged = judge(edit.side)
            except ValidationError:
                # A repair that makes data the format does not take mends nothing.
                continue
            except Exception:
                # A guard must not fail the agent's call for a repair's own fault: the repair is
                # passed over (and said so), and the answer mended otherwise or not at all.
                LOGGER.exception("repair %s failed on this answer; passed over", repair.__name__)
                continue
            if _violations(judged, law) >= before_count:
                continue
            options.append(_Step(judged, edit.side.size(counter), edit, repair.__name__))
        if options:
            return law, min(options, key=lambda s: (_violations(s.findings), s.size))
    return None


def mend_sides(
    before: Side,
    after: Side,
    facts: Facts,
    laws: list[Invariant[Any, Any]],
    judge_model: MeteredModel | None = None,
) -> tuple[Side, tuple[Change, ...], tuple[Finding, ...], str]:
    """Repair ``after`` law by law; the last answer, the changes, its findings, why it stopped."""
    judge = _Judge(before, facts, laws, judge_model)
    counter: Counter = facts.budget.counter if facts.budget is not None else "characters"
    current = after
    findings = judge(current)
    seen = {canonical(current.request)}
    changes: list[Change] = []
    while _violations(findings):
        if len(changes) >= MAX_CHANGES:
            return current, tuple(changes), findings, f"still broken after {MAX_CHANGES} repairs"
        found = _step(judge, current, findings, seen, counter)
        if found is None:
            first = _order(findings)[0]
            because = next(f for f in findings if f.invariant == first).violations[0].because
            return (
                current,
                tuple(changes),
                findings,
                (
                    f"no repair mends {first} ({because})"
                    if first in REPAIRS
                    else f"{first} has no mechanical repair ({because})"
                ),
            )
        law, step = found
        changes.append(
            Change(
                law,
                step.repair,
                step.edit.what,
                step.edit.added,
                step.edit.removed,
                current.size(counter),
                step.size,
                counter,
            )
        )
        current, findings = step.edit.side, step.findings
        seen.add(canonical(current.request))
    return current, tuple(changes), findings, ""


def repair(
    before: Any,
    after: Any,
    facts: Facts | dict[str, Any] | None = None,
    *,
    format: Format | None = None,
    selection: Selection | None = None,
    judge: MeteredModel | None = None,
) -> Mended:
    """The smallest lawful repair of one compactor answer, or why there is none.

    ``before`` is what the compactor was handed and ``after`` what it answered, in any
    messages format (named, or detected from both); ``facts`` as ``compactcheck.check`` takes
    them (inferred from ``before`` unless declared); ``selection`` chooses the laws; ``judge``
    (as ``check_pair`` takes it) settles the rulings left for review on every answer tried. A
    pair that is not valid data raises ``PairError``, as ``check`` does.
    """
    pair = parse_messages_pair(before, after, format)
    chosen = pair.format
    known = infer_facts(pair.before, facts)
    laws = (selection or Selection(None, ())).laws("messages", chosen)
    first = _side(before, pair, chosen, "before")
    answered = _side(after, pair, chosen, "after")
    counter: Counter = known.budget.counter if known.budget is not None else "characters"
    current, changes, findings, reason = mend_sides(first, answered, known, laws, judge)
    size_input, size_answer = first.size(counter), answered.size(counter)
    size = current.size(counter)
    answer = None
    if not reason:
        # An answer that broke nothing is the compactor's own, whatever its size.
        answer, reason = (
            (after, "") if not changes else _checked(after, first, current, known, counter)
        )
    tried = after if not changes else shaped(after, current)
    return Mended(answer, changes, findings, reason, counter, size_input, size_answer, size, tried)


def _side(data: Any, pair: MessagesPair, format: Format, which: str) -> Side:
    native = pair.native_before if which == "before" else pair.native_after
    if format == CHAT or native is None:
        side = side_of(data, format, validated=False)
        # Parsed once, by the pair: the repairs read the same messages the laws judged.
        side.__dict__["parsed"] = pair.before if which == "before" else pair.after
        return side
    side = Side(format, native.to_json_data())
    side.__dict__["parsed"] = native
    return side


def _checked(
    original: Any, before: Side, repaired: Side, facts: Facts, counter: Counter
) -> tuple[Any, str]:
    """The repaired answer in the compactor's shape, if it is no larger than the input and fits
    the declared budget; else None and why."""
    size, limit = repaired.size(counter), before.size(counter)
    if size > limit or repaired.json_size > before.json_size:
        grown = (
            f"{size} {counter} against the input's {limit}"
            if size > limit
            else f"{repaired.json_size} characters of JSON against the input's {before.json_size}"
        )
        return None, f"the repaired answer would be larger than the input ({grown})"
    budget = facts.budget
    if budget is not None and (within := repaired.size(budget.counter)) > budget.limit:
        return None, (
            f"the repaired answer would measure {within} {budget.counter}, over the declared "
            f"budget of {budget.limit}"
        )
    shape = shaped(original, repaired)
    if shape is None:
        return None, "the repair changes the system prompt, which a bare history list cannot say"
    return shape, ""


__all__ = ["MAX_CHANGES", "Mended", "mend_sides", "repair"]
