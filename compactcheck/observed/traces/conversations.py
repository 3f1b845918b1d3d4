"""Calls grouped into conversations as records stream in, in any order; closed when quiet.

What is held, and why it is bounded:

- per open trace: the few fields of each span that tie a call to its agent (parent, agent
  name), each model call read so far (its history stored once per distinct item, see
  ``history``), the model-call spans whose messages are log events still to come, and those
  log events;
- per open conversation: its calls.

A trace is closed when ``window`` records have been read without one of it (the exporters
write a trace's spans and logs together, batch by batch) or at the end of the input; its calls
then join their conversation (the one the spans name, ``gen_ai.conversation.id`` or
``session.id``, else the trace itself), which is closed in turn when quiet as long (one that
is its trace closes with it). So memory is bounded by the traces and conversations open within
the window, not by the file.

A closed conversation is cut into lineages, one per agent: the calls a span names an agent for
(``gen_ai.agent.name``, an ``invoke_agent`` ancestor, a LangGraph node) go with that agent; then,
in start order, a call goes with the latest lineage whose last call it shares a message with
(a summariser's own call shares none with the agent's, and starts a lineage of its own).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.traces import calls as reading
from compactcheck.observed.traces.history import Stored, Table
from compactcheck.observed.traces.records import Call, LogEvent, Record, Skip, Span, SpanEvent

DEFAULT_WINDOW = 20_000


@dataclass(frozen=True, slots=True)
class Held:
    """A model call as a conversation holds it."""

    trace_id: str
    span_id: str
    start_ns: int
    format: Format
    head: dict[str, Any]
    history: Stored
    output: Stored | None
    agent: str
    source: str
    order: int


@dataclass(frozen=True, slots=True)
class Step:
    """Two consecutive calls of one agent."""

    conversation: str
    agent: str
    previous: Held
    current: Held


@dataclass
class _Trace:
    last: int
    parents: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    pending: dict[str, Span] = field(default_factory=dict)
    logs: dict[str, list[SpanEvent]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)


@dataclass
class _Conversation:
    last: int
    table: Table = field(default_factory=Table)
    calls: list[tuple[Held, str]] = field(default_factory=list)


@dataclass
class Tally:
    """What was read: spans, log events, model calls, and each reason a call was skipped."""

    spans: int = 0
    log_events: int = 0
    model_calls: int = 0
    pairs: int = 0
    conversations: int = 0
    lineages: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    first_skips: list[Skip] = field(default_factory=list)

    def skip(self, skip: Skip) -> None:
        """Count a skipped call by its reason (the first few are kept with their ids)."""
        self.skipped[skip.reason] += 1
        if len(self.first_skips) < 20:
            self.first_skips.append(skip)


class Tracker:
    """Feeds records in, yields the steps of each conversation as it closes."""

    def __init__(self, window: int = DEFAULT_WINDOW) -> None:
        self.window = window
        self.tally = Tally()
        self._count = 0
        self._traces: dict[str, _Trace] = {}
        self._conversations: dict[str, _Conversation] = {}
        self._orders = 0

    @property
    def open(self) -> tuple[int, int]:
        """How many traces and conversations are open (held in memory) now."""
        return len(self._traces), len(self._conversations)

    def feed(self, record: Record) -> Iterator[Step]:
        """Take one record; the steps of every conversation that closed meanwhile."""
        self._count += 1
        if isinstance(record, Skip):
            self.tally.model_calls += 1
            self.tally.skip(record)
        else:
            trace = self._traces.get(record.trace_id)
            if trace is None:
                trace = self._traces[record.trace_id] = _Trace(self._count)
            trace.last = self._count
            self._add(trace, record)
        if self._count % 1000 == 0:
            yield from self._close_quiet()

    def _add(self, trace: _Trace, record: Span | LogEvent | Call) -> None:
        if isinstance(record, Call):
            self.tally.model_calls += 1
            trace.calls.append(record)
        elif isinstance(record, LogEvent):
            self.tally.log_events += 1
            trace.logs.setdefault(record.span_id, []).append(record.event)
        else:
            self.tally.spans += 1
            trace.parents[record.span_id] = (
                record.parent_id,
                reading.agent_of(record.attributes),
                reading.conversation_of(record.attributes),
            )
            if not reading.is_model_call(record):
                return
            if reading.needs_logs(record):
                trace.pending[record.span_id] = record
                return
            self.tally.model_calls += 1
            self._read(trace, record, ())

    def _read(self, trace: _Trace, span: Span, logs: list[SpanEvent] | tuple[()]) -> None:
        found = reading.read_span(span, logs)
        if isinstance(found, Skip):
            self.tally.skip(found)
        else:
            trace.calls.append(found)

    def _close_quiet(self) -> Iterator[Step]:
        edge = self._count - self.window
        for trace_id in [t for t, trace in self._traces.items() if trace.last < edge]:
            self._close_trace(trace_id)
            # A conversation that is its trace can gain nothing more: closed with it.
            if f"trace {trace_id}" in self._conversations:
                yield from self._close_conversation(f"trace {trace_id}")
        for key in [k for k, c in self._conversations.items() if c.last < edge]:
            yield from self._close_conversation(key)

    def finish(self) -> Iterator[Step]:
        """Close everything still open: the end of the input."""
        for trace_id in list(self._traces):
            self._close_trace(trace_id)
        for key in list(self._conversations):
            yield from self._close_conversation(key)

    def _close_trace(self, trace_id: str) -> None:
        trace = self._traces.pop(trace_id)
        for span_id, span in trace.pending.items():
            self.tally.model_calls += 1
            self._read(trace, span, trace.logs.get(span_id, []))
        for call in trace.calls:
            named = call.conversation or _ancestor(trace, call.parent_id, 2)
            key = named or f"trace {call.trace_id}"
            conversation = self._conversations.get(key)
            if conversation is None:
                conversation = self._conversations[key] = _Conversation(self._count)
            conversation.last = self._count
            self._orders += 1
            output = (
                conversation.table.store(call.output, call.format)
                if call.output is not None
                else None
            )
            held = Held(
                trace_id=call.trace_id,
                span_id=call.span_id,
                start_ns=call.start_ns,
                format=call.format,
                head=dict(call.head),
                history=conversation.table.store(call.history, call.format),
                output=output,
                agent=call.agent or _ancestor(trace, call.parent_id, 1),
                source=call.source,
                order=self._orders,
            )
            conversation.calls.append((held, held.agent))

    def _close_conversation(self, key: str) -> Iterator[Step]:
        conversation = self._conversations.pop(key)
        self.tally.conversations += 1
        calls = sorted(conversation.calls, key=lambda pair: (pair[0].start_ns, pair[0].order))
        for agent, lineage in _lineages(calls, self.tally):
            self.tally.lineages += 1
            for previous, current in pairwise(lineage):
                self.tally.pairs += 1
                yield Step(key, agent, previous, current)


def _ancestor(trace: _Trace, parent: str, field: int) -> str:
    """What the nearest ancestor span names (1: its agent, 2: its conversation), or ''."""
    seen = 0
    while parent and seen < 64:
        found = trace.parents.get(parent)
        if found is None:
            return ""
        if found[field]:
            return found[field]
        parent = found[0]
        seen += 1
    return ""


NEW_SEQUENCE = "a call shares no message with the one before: read as a new conversation"
"""Why a call is compared with none before it though its conversation had calls already."""


def _lineages(calls: list[tuple[Held, str]], tally: Tally) -> Iterator[tuple[str, list[Held]]]:
    """Each agent's calls, cut into lineages by shared messages (see the module docstring).

    A call that starts a lineage after the first is compared with nothing before it: it is
    counted in the tally's skipped calls, with the reason, rather than passed over silently.
    """
    by_agent: dict[str, list[Held]] = {}
    for held, agent in calls:
        by_agent.setdefault(agent, []).append(held)
    for agent, listed in by_agent.items():
        lineages: list[tuple[list[Held], set[str]]] = []
        for held in listed:
            keys = set(held.history.keys)
            home = next((line for line in reversed(lineages) if not line[1].isdisjoint(keys)), None)
            if home is None:
                if lineages:
                    tally.skip(Skip(held.trace_id, held.span_id, NEW_SEQUENCE))
                lineages.append(([held], keys))
            else:
                home[0].append(held)
                lineages[lineages.index(home)] = (home[0], keys)
        for lineage, _ in lineages:
            yield agent, lineage


__all__ = ["DEFAULT_WINDOW", "NEW_SEQUENCE", "Held", "Step", "Tally", "Tracker"]
