"""The session-view laws: what a compaction may append to a session log (spec section 8).

Every checker takes the log before, what the backend appended (with the log after read from
scratch and incrementally) and the run's facts. Each is one pass over the log and the appended
events; lookups go by seq into the event tuples, never by scanning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from invariants.catalogue import invariant
from invariants.facts import Facts
from invariants.session.bracket import ABSENT
from invariants.session.checker import node_price
from invariants.session.envelope import SessionEvent
from invariants.session.exchange import Breach, Replacement, SessionAfter, SessionBefore
from invariants.session.messages import is_compact_checkpoint_source
from invariants.session.pairing import node_delta
from invariants.verdict import Finding, Violation, value_diff

OPEN_TAG = "<compacted-summary>"
CLOSE_TAG = "</compacted-summary>"


def _witness(*events: SessionEvent | None) -> tuple[JsonValue, ...]:
    seen: set[int] = set()
    out: list[JsonValue] = []
    for event in events:
        if event is not None and event.seq not in seen:
            seen.add(event.seq)
            out.append(event.to_json_data())
    return tuple(out)


def _data(event: SessionEvent | None) -> dict[str, Any]:
    return event.data if event is not None and isinstance(event.data, dict) else {}


def _delta(event: SessionEvent | None) -> int:
    return 0 if event is None else node_delta(event.type, event.data)


def _is_rewrite(event: SessionEvent) -> bool:
    """A replacing user/message: a checkpoint, whether or not it carries the marker."""
    return event.type == "user/message" and event.is_replacement


def _label(event: SessionEvent | None, seq: int | None = None) -> str:
    if event is None:
        return f"seq {seq}" if seq is not None else "the end of the log"
    return f"{event.type} seq {event.seq}"


def _seqs(seqs: Sequence[int]) -> str:
    if not seqs:
        return "nothing"
    return f"seq {seqs[0]}" if len(seqs) == 1 else f"seqs {seqs[0]}..{seqs[-1]}"


@dataclass
class _Attempt:
    """One compaction bracket among the appended events (start may be missing if malformed)."""

    start: SessionEvent | None
    summary: SessionEvent | None = None
    checkpoints: list[SessionEvent] = field(default_factory=list)
    inside: list[SessionEvent] = field(default_factory=list)
    end: SessionEvent | None = None

    @property
    def name(self) -> str:
        for event in (self.start, self.summary, self.end):
            compaction_id = _data(event).get("compactionId")
            if isinstance(compaction_id, str):
                return repr(compaction_id)
        return "(no id)"

    @property
    def failed(self) -> bool:
        return self.end is not None and "error" in _data(self.end)

    @property
    def succeeded(self) -> bool:
        return self.end is not None and "error" not in _data(self.end)

    def shadowed_seqs(self) -> list[int] | None:
        seqs = _data(self.summary).get("shadowedSeqs")
        if isinstance(seqs, list) and all(type(seq) is int for seq in seqs):
            return seqs
        return None


@dataclass
class _Appended:
    """The appended events grouped by compaction bracket."""

    attempts: list[_Attempt]
    loose_rewrites: list[SessionEvent]


def _group(appended: Iterable[SessionEvent]) -> _Appended:
    attempts: list[_Attempt] = []
    loose: list[SessionEvent] = []
    current: _Attempt | None = None
    for event in appended:
        kind = event.type
        if kind == "compaction/start":
            current = _Attempt(event)
            attempts.append(current)
            continue
        if current is None:
            if kind in ("compaction/summary", "compaction/end"):
                current = _Attempt(None)
                attempts.append(current)
            else:
                if _is_rewrite(event):
                    loose.append(event)
                continue
        if kind == "compaction/summary" and current.summary is None:
            current.summary = event
        elif _is_rewrite(event):
            current.checkpoints.append(event)
        elif kind == "compaction/end":
            current.end = event
            current = None
        else:
            current.inside.append(event)
    return _Appended(attempts, loose)


def _incremental_event(before: SessionBefore, after: SessionAfter, seq: int) -> SessionEvent | None:
    """An event as the incremental result sees it: the log as handed, then the appended."""
    if 0 <= seq < len(before.events):
        return before.events[seq]
    index = seq - len(before.events)
    return after.appended[index] if 0 <= index < len(after.appended) else None


# -- laws -------------------------------------------------------------------------------------


@invariant(
    "session",
    "surface_well_formed",
    "the log after keeps the surface rules S1-S7: contiguous seqs, markers only on surface "
    "types, positional replaces of visible nodes that cite what they shadow",
)
def surface_well_formed(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """The log after folds to a surface without breaking an S rule."""
    del before, facts
    broken = after.surface.broken
    found: tuple[Violation, ...] = ()
    if broken is not None:
        event = after.event_at(broken.seq) if broken.seq is not None else None
        found = (
            Violation(
                "surface_well_formed",
                f"the log after breaks {broken.rule} at {_label(event, broken.seq)}: "
                f"{broken.detail}",
                _witness(event),
            ),
        )
    return Finding("surface_well_formed", bool(after.appended), found)


# S rules are surface_well_formed's, TP3 is tool_pairing's; every other rule is grammar.
_NOT_GRAMMAR = frozenset({"E1", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "TP3"})


def _is_grammar_rule(breach: Breach) -> bool:
    return breach.rule not in _NOT_GRAMMAR


@invariant(
    "session",
    "transaction_grammar",
    "the appended events keep the compaction bracket grammar (C1-C7), the strict rules "
    "G-a..G-k and the session's enclosure rules",
)
def transaction_grammar(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """start, then optionally summary and its checkpoint, then end(error?), in an owned turn."""
    del before, facts
    breach = after.breach
    found: tuple[Violation, ...] = ()
    if breach is not None and _is_grammar_rule(breach):
        event = after.event_at(breach.seq) if breach.seq is not None else None
        behind: list[SessionEvent | None] = [event]
        if event is None:
            # End of log (G-k): the unmatched start is what is behind it.
            behind.append(
                next((e for e in reversed(after.events) if e.type == "compaction/start"), None)
            )
        elif event.type == "user/message" and event.seq >= 1:
            behind.insert(0, after.event_at(event.seq - 1))
        found = (
            Violation(
                "transaction_grammar",
                f"the log after breaks {breach.rule} at {_label(event, breach.seq)}: "
                f"{breach.detail}",
                _witness(*behind),
            ),
        )
    exercised = any(
        event.type.startswith("compaction/") or event.is_replacement for event in after.appended
    )
    return Finding("transaction_grammar", exercised, found)


def _edge_violation(
    before: SessionBefore, after: SessionAfter, replaced: Replacement
) -> Violation | None:
    open_after = replaced.open_before + replaced.span_delta
    if replaced.open_before == 0 and open_after == 0:
        return None
    checkpoint = _incremental_event(before, after, replaced.seq)
    shadowed = [_incremental_event(before, after, seq) for seq in replaced.shadowed]
    paired = [event for event in shadowed if _delta(event) != 0]
    nodes = after.incremental.nodes
    position = nodes.index(replaced.seq) if replaced.seq in nodes else None
    outside: SessionEvent | None = None
    if replaced.open_before != 0:
        edge = f"{replaced.open_before} tool call(s) are open at the cut before it"
        inner = paired[0] if paired else None
        if position is not None and position > 0:
            outside = _incremental_event(before, after, nodes[position - 1])
    else:
        edge = f"{open_after} tool call(s) are open at the cut after it"
        inner = paired[-1] if paired else None
        if position is not None and position + 1 < len(nodes):
            outside = _incremental_event(before, after, nodes[position + 1])
    return Violation(
        "tool_pairing",
        f"{_label(checkpoint)} replaces {_seqs(replaced.shadowed)} but {edge}: the span "
        f"splits a tool call from its result ({_label(inner)} is shadowed, "
        f"{_label(outside)} stays visible)",
        _witness(inner, checkpoint, outside),
    )


@invariant(
    "session",
    "tool_pairing",
    "a compacted span is balanced at both edges, so the surface after has no orphan tool "
    "result and every call closed before is still closed",
)
def tool_pairing(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Balanced edges (spec 3.1 and 8.1.1-3), counting calls as the spec does."""
    del facts
    replaced = [r for r in after.incremental.replacements if r.type != "tool/result"]
    before_deltas = [_delta(before.events[seq]) for seq in before.surface.nodes]
    exercised = bool(replaced) and any(before_deltas)
    found: list[Violation] = []
    for replacement in replaced:
        violation = _edge_violation(before, after, replacement)
        if violation is not None:
            found.append(violation)
    if not found and not after.incremental.broken:
        running = 0
        last_rewrite: SessionEvent | None = None
        for seq in after.incremental.nodes:
            event = _incremental_event(before, after, seq)
            if event is not None and _is_rewrite(event):
                last_rewrite = event
            running += _delta(event)
            if running < 0:
                found.append(
                    Violation(
                        "tool_pairing",
                        f"{_label(event)} on the surface after has no open tool call before "
                        f"it (the call was compacted away by {_label(last_rewrite)})",
                        _witness(last_rewrite, event),
                    )
                )
                break
        else:
            if running != sum(before_deltas):
                found.append(
                    Violation(
                        "tool_pairing",
                        f"the surface after leaves {running} tool call(s) open where the "
                        f"surface before left {sum(before_deltas)}: a call closed before is "
                        "open now, or the reverse",
                        _witness(*(after.appended[:2])),
                    )
                )
    return Finding("tool_pairing", exercised, tuple(found))


@invariant(
    "session",
    "lock_exclusive",
    "no compaction opens while a live bracket holds the lock, no second bracket opens inside "
    "one, and every bracket the backend opens it also closes",
)
def lock_exclusive(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """The durable lock (spec 2.5): busy means no events; what is opened is closed."""
    del facts
    found: list[Violation] = []
    if before.live_lock is not None:
        intruder = next(
            (e for e in after.appended if e.type.startswith("compaction/") or e.is_replacement),
            None,
        )
        if intruder is not None:
            held = before.event_at(before.live_lock)
            found.append(
                Violation(
                    "lock_exclusive",
                    f"compaction/start seq {before.live_lock} holds a live lock (no end, no "
                    f"later end-seed), yet the backend appended {_label(intruder)} instead of "
                    "reporting busy",
                    _witness(held, intruder),
                )
            )
    open_start: SessionEvent | None = None
    for event in after.appended:
        if event.type == "compaction/start":
            if open_start is not None:
                found.append(
                    Violation(
                        "lock_exclusive",
                        f"a second compaction/start at seq {event.seq} opens while the one at "
                        f"seq {open_start.seq} is still open",
                        _witness(open_start, event),
                    )
                )
            open_start = event
        elif event.type in ("compaction/end", "session/end-seed"):
            open_start = None
    if open_start is not None:
        found.append(
            Violation(
                "lock_exclusive",
                f"compaction/start seq {open_start.seq} "
                f"({_data(open_start).get('compactionId')!r}) is never closed: the backend "
                "leaves the lock taken and every later compaction reports busy",
                _witness(open_start),
            )
        )
    exercised = before.live_lock is not None or any(
        e.type == "compaction/start" for e in after.appended
    )
    return Finding("lock_exclusive", exercised, tuple(found))


@invariant(
    "session",
    "shrinks",
    "each checkpoint is priced below the nodes it replaces, and the surface's total price does "
    "not grow",
)
def shrinks(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Shrink rule (spec 2.7, 8.1.4) under the meter's heuristic."""
    del facts
    found: list[Violation] = []
    checkpoints = [r for r in after.incremental.replacements if r.type == "user/message"]
    for replaced in checkpoints:
        checkpoint = _incremental_event(before, after, replaced.seq)
        assert checkpoint is not None
        own = node_price(checkpoint)
        shadowed = [_incremental_event(before, after, seq) for seq in replaced.shadowed]
        price = sum(node_price(event) for event in shadowed if event is not None)
        if own >= price:
            found.append(
                Violation(
                    "shrinks",
                    f"checkpoint {_label(checkpoint)} is priced {own} tokens, not less than the "
                    f"{price} of {_seqs(replaced.shadowed)} it replaces",
                    _witness(checkpoint),
                    value_diff({"below": price}, {"below": own}),
                )
            )
    if checkpoints and not found and not after.incremental.broken:
        total_before = sum(node_price(before.events[seq]) for seq in before.surface.nodes)
        total_after = 0
        for seq in after.incremental.nodes:
            event = _incremental_event(before, after, seq)
            total_after += node_price(event) if event is not None else 0
        if total_after > total_before:
            found.append(
                Violation(
                    "shrinks",
                    f"the surface after is priced {total_after} tokens, more than the "
                    f"{total_before} before compaction",
                    (),
                    value_diff(total_before, total_after),
                )
            )
    return Finding("shrinks", bool(checkpoints), tuple(found))


@invariant(
    "session",
    "tail_retained",
    "every surface node outside the summarised range survives verbatim and in order, and the "
    "newest node is never compacted",
)
def tail_retained(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """One contiguous replacement; prefix and tail untouched (spec 8.1.2, 8.1.5)."""
    del facts
    grouped = _group(after.appended)
    rewrites = [r for r in after.incremental.replacements if r.type == "user/message"]
    view = after.surface
    if not rewrites or view.broken is not None or not before.surface.nodes:
        return Finding("tail_retained", False)
    # What each checkpoint claims to summarise: its summary's list when it has one.
    summarised: dict[int, list[int]] = {}
    for attempt in grouped.attempts:
        seqs = attempt.shadowed_seqs()
        for checkpoint in attempt.checkpoints:
            if seqs is not None:
                summarised[checkpoint.seq] = seqs
    claimed: set[int] = set()
    shadowed_by: dict[int, int] = {}
    for replaced in after.incremental.replacements:
        for seq in replaced.shadowed:
            shadowed_by[seq] = replaced.seq
        if replaced.type == "user/message":
            claimed.update(summarised.get(replaced.seq, replaced.shadowed))
    pruned = {
        seq: replaced.seq
        for replaced in after.incremental.replacements
        if replaced.type == "tool/result"
        for seq in replaced.shadowed
    }
    found: list[Violation] = []
    newest = before.surface.nodes[-1]
    if newest in claimed:
        found.append(
            Violation(
                "tail_retained",
                f"the newest surface node {_label(before.event_at(newest))} was compacted by "
                f"{_label(after.event_at(shadowed_by.get(newest, -1)))}: compaction keeps the "
                "newest unit and never the whole history",
                _witness(before.event_at(newest), after.event_at(shadowed_by.get(newest, -1))),
            )
        )
    position = {seq: index for index, seq in enumerate(view.nodes)}
    last_position = -1
    for index, seq in enumerate(before.surface.nodes):
        if seq in claimed:
            continue
        current = seq
        while current in pruned:  # a content-only tool/result rewrite keeps the node
            current = pruned[current]
        kept = position.get(current)
        lost = before.event_at(seq)
        if kept is None:
            replacer = after.event_at(shadowed_by.get(seq, -1))
            found.append(
                Violation(
                    "tail_retained",
                    f"{_label(lost)}{' (the newest node)' if seq == newest else ''} lies "
                    "outside every summarised range, yet it is gone from "
                    f"the surface after" + (f" (hidden by {_label(replacer)})" if replacer else ""),
                    _witness(lost, replacer),
                )
            )
            break
        if kept <= last_position:
            found.append(
                Violation(
                    "tail_retained",
                    f"{_label(lost)} moved: it no longer follows the nodes it followed before",
                    _witness(lost),
                )
            )
            break
        last_position = kept
        if current == seq and view.rendered[kept] != before.surface.rendered[index]:
            found.append(
                Violation(
                    "tail_retained",
                    f"{_label(lost)} is still on the surface but no longer renders the same "
                    "message",
                    _witness(lost, after.event_at(seq)),
                    value_diff(before.surface.rendered[index], view.rendered[kept]),
                )
            )
            break
    return Finding("tail_retained", True, tuple(found))


@invariant(
    "session",
    "failure_atomic",
    "a failed compaction leaves the surface exactly as it was and logs only its start and its "
    "error end",
)
def failure_atomic(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Failure atomicity (spec 2.3, 8.1.7)."""
    del facts
    attempts = _group(after.appended).attempts
    failed = [attempt for attempt in attempts if attempt.failed]
    if not failed:
        return Finding("failure_atomic", False)
    found: list[Violation] = []
    for attempt in failed:
        # A lone summary is the spec's commit-body failure (the checkpoint append threw).
        extra = [*attempt.checkpoints, *attempt.inside]
        if extra:
            error = _data(attempt.end).get("error")
            found.append(
                Violation(
                    "failure_atomic",
                    f"compaction {attempt.name} failed ({_label(attempt.end)}: {error!r}) yet "
                    f"also appended {', '.join(_label(e) for e in extra[:3])}; a failed "
                    "attempt logs only its start and its error end",
                    _witness(attempt.start, *extra[:2], attempt.end),
                )
            )
    view = after.surface if after.surface.broken is None else after.incremental
    if not any(attempt.succeeded for attempt in attempts) and (
        view.nodes != before.surface.nodes
        or view.generation != before.surface.generation
        or view.messages != before.surface.messages
    ):
        changed = [e for e in after.appended if e.surface_op is not None][:2]
        found.append(
            Violation(
                "failure_atomic",
                f"compaction {failed[0].name} failed, but the surface changed: "
                f"{len(before.surface.nodes)} nodes at generation {before.surface.generation} "
                f"became {len(view.nodes)} at generation {view.generation}",
                _witness(failed[0].start, *changed, failed[0].end),
                value_diff(list(before.surface.nodes), list(view.nodes)),
            )
        )
    return Finding("failure_atomic", True, tuple(found))


def _first_edit(before: SessionBefore, after: SessionAfter) -> tuple[int | None, str]:
    if len(after.log_data) != len(before.log_data):
        return None, (
            f"the handed log came back with {len(after.log_data)} events instead of "
            f"{len(before.log_data)}"
        )
    for index, (was, now) in enumerate(zip(before.log_data, after.log_data, strict=True)):
        if was != now:
            return index, f"the backend edited the handed log in place at seq {index}"
    return None, "the handed log came back unchanged"


@invariant(
    "session",
    "replay_deterministic",
    "folding the log after from scratch gives the same surface, generation and messages as the "
    "handed log continued with the appended events",
)
def replay_deterministic(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Deterministic replay (spec 1.4, 8.1.10)."""
    del facts
    scratch, live = after.surface, after.incremental
    found: tuple[Violation, ...] = ()
    if (scratch.nodes, scratch.generation, scratch.messages, scratch.broken) != (
        live.nodes,
        live.generation,
        live.messages,
        live.broken,
    ):
        edited, how = _first_edit(before, after)
        behind = (before.event_at(edited), after.event_at(edited)) if edited is not None else ()
        found = (
            Violation(
                "replay_deterministic",
                f"a replay of the log after shows {len(scratch.messages)} messages at generation "
                f"{scratch.generation}, the incremental result {len(live.messages)} at "
                f"generation {live.generation}: {how}",
                _witness(*behind),
                value_diff(list(live.messages), list(scratch.messages)),
            ),
        )
    return Finding("replay_deterministic", bool(after.appended), found)


def _blocks(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _kinds(blocks: Iterable[Any]) -> list[str]:
    return sorted(
        {str(block.get("type")) if isinstance(block, dict) else "?" for block in blocks} - {"text"}
    )


def _text(block: Any) -> str | None:
    if isinstance(block, dict) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else None
    return None


def _framing_problem(content: list[Any], summary: list[Any] | None) -> str | None:
    if len(content) < 3:
        return f"has {len(content)} block(s); a framed checkpoint has preamble, summary, close"
    head, tail = _text(content[0]), _text(content[-1])
    suffix = f"\n\n{OPEN_TAG}"
    if head is None or not head.endswith(suffix) or not head[: -len(suffix)].strip():
        return f"does not open with the preamble, a blank line and {OPEN_TAG}"
    if tail != CLOSE_TAG:
        return f"does not close with a {CLOSE_TAG} block"
    if summary is not None and content[1:-1] != summary:
        return "frames blocks that differ from its compaction/summary's summary"
    return None


@invariant(
    "session",
    "summary_hygiene",
    "the summary is non-blank text only, and the checkpoint frames exactly that text between "
    "the preamble and the compacted-summary tags, with no tool calls, reasoning or images",
)
def summary_hygiene(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Summary hygiene (spec 4.7, 7.1, 8.1.9)."""
    del before, facts
    found: list[Violation] = []
    grouped = _group(after.appended)
    exercised = False
    for attempt in grouped.attempts:
        summary_blocks: list[Any] | None = None
        if attempt.summary is not None:
            exercised = True
            summary_blocks = _blocks(_data(attempt.summary).get("summary"))
            bad = _kinds(summary_blocks)
            if bad:
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"{_label(attempt.summary)} carries {', '.join(bad)} block(s); a "
                        "summary is text only",
                        _witness(attempt.summary),
                    )
                )
            elif not any((_text(block) or "").strip() for block in summary_blocks):
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"{_label(attempt.summary)} has no non-blank text",
                        _witness(attempt.summary),
                    )
                )
        for checkpoint in attempt.checkpoints:
            exercised = True
            content = _blocks(_data(checkpoint).get("content"))
            bad = _kinds(content)
            problem = (
                f"carries {', '.join(bad)} block(s); a checkpoint is text only"
                if bad
                else _framing_problem(content, summary_blocks)
            )
            if problem is not None:
                found.append(
                    Violation(
                        "summary_hygiene",
                        f"checkpoint {_label(checkpoint)} {problem}",
                        _witness(attempt.summary, checkpoint),
                    )
                )
    return Finding("summary_hygiene", exercised, tuple(found))


def _identity_problem(attempt: _Attempt, checkpoint: SessionEvent) -> str | None:
    source = _data(checkpoint).get("source")
    if not is_compact_checkpoint_source(source):
        return (
            f"replaces surface nodes inside compaction {attempt.name} but its source {source!r} "
            "lacks the checkpoint marker {kind: plugin, plugin: compact}"
        )
    assert isinstance(source, dict)
    start = _data(attempt.start)
    if source.get("compactionId") != start.get("compactionId"):
        return (
            f"names compactionId {source.get('compactionId')!r}; its bracket is "
            f"{start.get('compactionId')!r}"
        )
    if source.get("sourceCommandId", ABSENT) != start.get("sourceCommandId", ABSENT):
        return (
            f"names sourceCommandId {source.get('sourceCommandId', ABSENT)!r}; its bracket has "
            f"{start.get('sourceCommandId', ABSENT)!r}"
        )
    return None


@invariant(
    "session",
    "checkpoint_identifiable",
    "every committed compaction appends one checkpoint with the compact marker and its "
    "compaction's ids, replacing the summary's range and citing [start, summary, ...shadowed]",
)
def checkpoint_identifiable(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """Checkpoint identity and provenance (spec 2.1, 2.2 step 4, G-c, G-f)."""
    del before, facts
    grouped = _group(after.appended)
    found: list[Violation] = []
    exercised = bool(grouped.loose_rewrites)
    for attempt in grouped.attempts:
        if attempt.succeeded or attempt.checkpoints:
            exercised = True
        if attempt.succeeded and not attempt.checkpoints:
            found.append(
                Violation(
                    "checkpoint_identifiable",
                    f"compaction {attempt.name} ended without error ({_label(attempt.end)}) but "
                    "no checkpoint was appended inside its bracket",
                    _witness(attempt.start, attempt.summary, attempt.end),
                )
            )
        for checkpoint in attempt.checkpoints:
            problem = _identity_problem(attempt, checkpoint)
            if problem is not None:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"{_label(checkpoint)} {problem}",
                        _witness(attempt.start, checkpoint),
                    )
                )
                continue
            seqs = attempt.shadowed_seqs()
            if attempt.start is None or attempt.summary is None or seqs is None:
                continue
            cited = [attempt.start.seq, attempt.summary.seq, *seqs]
            shadow = _data(attempt.summary).get("shadowedRange")
            op = {"op": "replace", **shadow} if isinstance(shadow, dict) else None
            if checkpoint.source_event_seqs != cited:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"checkpoint {_label(checkpoint)} cites {checkpoint.source_event_seqs}; "
                        f"it must cite [start, summary, ...shadowedSeqs] = {cited}",
                        _witness(attempt.summary, checkpoint),
                        value_diff(cited, checkpoint.source_event_seqs),
                    )
                )
            elif checkpoint.surface_op != op:
                found.append(
                    Violation(
                        "checkpoint_identifiable",
                        f"checkpoint {_label(checkpoint)} replaces {checkpoint.surface_op}; its "
                        f"summary's shadowedRange is {shadow}",
                        _witness(attempt.summary, checkpoint),
                        value_diff(op, checkpoint.surface_op),
                    )
                )
    for rewrite in grouped.loose_rewrites:
        marked = is_compact_checkpoint_source(_data(rewrite).get("source"))
        found.append(
            Violation(
                "checkpoint_identifiable",
                f"{_label(rewrite)} rewrites the surface outside any compaction bracket"
                + ("" if marked else " and without the checkpoint marker"),
                _witness(rewrite),
            )
        )
    return Finding("checkpoint_identifiable", exercised, tuple(found))


@invariant(
    "session",
    "progress",
    "a result that is not a logged failure changes the model-visible history; a successful "
    "compaction raises the replace generation (the proof an overflow retry needs)",
)
def progress(before: SessionBefore, after: SessionAfter, facts: Facts) -> Finding:
    """No-op honesty and the progress proof (spec 4.5, 8.1.6, 8.1.14)."""
    del facts
    attempts = _group(after.appended).attempts
    view = after.surface if after.surface.broken is None else after.incremental
    changed = view.messages != before.surface.messages
    found: list[Violation] = []
    won = next((attempt for attempt in attempts if attempt.succeeded), None)
    retry = (
        " (an overflow retry would resend the same context)" if before.mode == "overflow" else ""
    )
    if won is not None and (not changed or view.generation <= before.surface.generation):
        found.append(
            Violation(
                "progress",
                f"compaction {won.name} ended without error ({_label(won.end)}), but the "
                f"model-visible history is unchanged: {len(view.messages)} messages, generation "
                f"{before.surface.generation} -> {view.generation}{retry}",
                _witness(*won.checkpoints[:1], won.end),
            )
        )
    elif not changed and not any(attempt.failed for attempt in attempts):
        found.append(
            Violation(
                "progress",
                f"the backend answered a result in {before.mode} mode that leaves the "
                f"{len(view.messages)} model-visible messages unchanged, appending "
                f"{len(after.appended)} event(s); with nothing to compact it must decline{retry}",
                _witness(*after.appended[:3]),
            )
        )
    return Finding("progress", True, tuple(found))
