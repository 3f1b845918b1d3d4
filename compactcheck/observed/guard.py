"""A runtime guard: the laws watching a production compactor on every call it makes.

::

    import compactcheck

    compact = compactcheck.guard(my_compact, on_violation="log", sample=0.1)
    messages = compact(messages)        # my_compact's answer, judged one call in ten

Each sampled call is judged as ``compactcheck.check`` judges a pair (facts inferred from the
history unless given, or computed per call by a function of the history); what happens on a
violation is the caller's choice:

- ``"raise"``: ``ViolationError`` (the compacted history is not returned);
- ``"log"``: one warning per violation on the ``compactcheck.guard`` logger, the answer returned;
- ``"return_input"``: the history is handed back uncompacted, as if the compactor had declined
  (the safe fallback when a broken context is worse than a long one);
- ``"repair"``: the smallest change that makes the answer lawful
  (``compactcheck.observed.repair``: the orphaned result taken out or its call brought back, the
  goal or the system prompt restored, ...), judged again by the same laws and returned only if
  every law holds on it, it is no larger than the input and it fits a declared budget; one
  warning per repair. Otherwise the history is handed back uncompacted, as ``"return_input"``
  does, with a warning that says why; when a budget is declared and the input is over it too,
  ``RepairError`` says that no lawful answer fits. A lawful answer larger than its input is
  replaced by the input too (it is lawful, and smaller);
- a callable: called with a ``GuardEvent`` (the judgement, the history and the answer), and
  its return value is returned when it is not None (else the compactor's answer).

A guard never hides the compactor's own exceptions, and a history the laws cannot read (not
chat completions or a provider request) raises ``CompactcheckError`` in every mode, since
judging nothing is not the same as passing. ``guarded.stats`` counts calls, sampled calls,
calls with a violation and, in repair mode, calls repaired, calls not repaired and repairs by
law, exactly, however many calls overlap (``stats.counters()`` flattens them for a metrics
system). ``on_event``, when given, is called with the ``GuardEvent`` of every call that broke a
law (or, in repair mode, grew the history), once the guard has chosen what to return (the
repairs it made among it).

The guard of an ``async def`` compactor is an async function (``await compact(messages)``), which
judges the awaited answer the same way; its ``on_violation`` callable may be async too.
"""

from __future__ import annotations

import functools
import inspect
import logging
import random
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar, overload

from compactcheck.base.awaiting import discarded, is_async, settled
from compactcheck.base.errors import CompactcheckError
from compactcheck.base.selection import Selection
from compactcheck.invariants import Facts
from compactcheck.invariants.formats import Format, check_format
from compactcheck.observed.guard_events import GuardEvent, GuardStats, RepairError
from compactcheck.observed.judging import Judgement, ViolationError, check_pair
from compactcheck.observed.repair import repair

if TYPE_CHECKING:
    from compactcheck.models import MeteredModel

LOGGER = logging.getLogger("compactcheck.guard")

History = TypeVar("History")

Action = Literal["raise", "log", "return_input", "repair"]
ACTIONS: tuple[Action, ...] = ("raise", "log", "return_input", "repair")


FactsSource = Facts | dict[str, Any] | Callable[[Any], Facts | dict[str, Any] | None] | None


@dataclass
class Guarded(Generic[History]):
    """A compactor with laws watching its answers (see the module docstring)."""

    compactor: Callable[..., History]
    on_violation: Action | Callable[[GuardEvent], Any]
    sample: float
    facts: FactsSource
    format: Format | None
    selection: Selection
    rng: random.Random
    stats: GuardStats = field(default_factory=GuardStats)
    on_event: Callable[[GuardEvent], Any] | None = None
    # Settles the rulings left for review; one judge program answers one request at a time.
    judge_model: MeteredModel | None = None
    _judging: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )
    # Calls may overlap (threads, an async guard's gathered calls): counting is one step.
    _counting: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    def __call__(self, history: History, *args: Any, **kwargs: Any) -> History:
        """The compactor's answer (or what ``on_violation`` chose), judged when sampled."""
        after = self.compactor(history, *args, **kwargs)
        if inspect.isawaitable(after):
            discarded(after)
            raise CompactcheckError(
                f"guard: {getattr(self.compactor, '__name__', 'the compactor')} returned an "
                "awaitable to a plain guard; define it with async def (or an async __call__), "
                "and guard() then returns an async function to await"
            )
        judgement = self._broken(history, after)
        if judgement is None:
            return after
        chosen = self._act(judgement, history, after)
        if inspect.isawaitable(chosen):
            discarded(chosen)
            raise CompactcheckError(
                "guard: on_violation returned an awaitable to a plain guard; pass a plain "
                "function, or guard an async def compactor"
            )
        return after if chosen is None else chosen

    async def awaited(self, history: History, *args: Any, **kwargs: Any) -> History:
        """An async compactor's awaited answer (or what ``on_violation`` chose, awaited when it
        is awaitable), judged when sampled."""
        after: History = await settled(self.compactor(history, *args, **kwargs))
        judgement = self._broken(history, after)
        if judgement is None:
            return after
        chosen: History | None = await settled(self._act(judgement, history, after))
        return after if chosen is None else chosen

    def _broken(self, before: Any, after: Any) -> Judgement | None:
        """Count the call; the judgement of a sampled one that broke a law, else None."""
        with self._counting:
            self.stats.calls += 1
            sampled = self.sample >= 1.0 or self.rng.random() < self.sample
        if not sampled:
            return None
        judgement = self.judge(before, after)
        with self._counting:
            self.stats.checked += 1
            if not judgement.holds:
                self.stats.violated += 1
        if judgement.holds and not self._grew(judgement):
            return None
        return judgement

    def _grew(self, judgement: Judgement) -> bool:
        """Whether a repairing guard sees an answer larger than its input (the input is then
        the smaller lawful answer)."""
        sizes = judgement.sizes
        return self.on_violation == "repair" and sizes is not None and sizes[1] > sizes[0]

    def _settling(self) -> AbstractContextManager[object]:
        """Held while the judge may be asked: one judge program answers one request at a time."""
        return self._judging if self.judge_model is not None else nullcontext()

    def judge(self, before: Any, after: Any) -> Judgement:
        """The judgement of one pair, as a guarded call makes it."""
        declared = self.facts(before) if callable(self.facts) else self.facts
        with self._settling():
            judgement = check_pair(
                before,
                after,
                declared,
                format=self.format,
                selection=self.selection,
                judge=self.judge_model,
            )
        # Detected once: a compactor speaks one format.
        self.format = judgement.format
        return judgement

    def _act(self, judgement: Judgement, before: History, after: History) -> Any:
        """The history to return, or what the ``on_violation`` callable returned."""
        action = self.on_violation
        if action == "raise":
            self._tell(GuardEvent(judgement, before, after))
            raise ViolationError(judgement)
        if action == "log":
            for violation in judgement.violations:
                LOGGER.warning("compaction broke %s: %s", violation.invariant, violation.because)
            self._tell(GuardEvent(judgement, before, after))
            return after
        if action == "return_input":
            LOGGER.warning(
                "compaction broke %s; the history is returned uncompacted", _broken(judgement)
            )
            self._tell(GuardEvent(judgement, before, after))
            return before
        if action == "repair":
            return self._repaired(judgement, before, after)
        assert callable(action)
        event = GuardEvent(judgement, before, after)
        chosen = action(event)
        self._tell(event)
        return chosen

    def _repaired(self, judgement: Judgement, before: History, after: History) -> Any:
        """The repaired answer; else the input; else RepairError (nothing lawful fits)."""
        if judgement.holds:
            assert judgement.sizes is not None
            grown, given = judgement.sizes[1], judgement.sizes[0]
            reason = f"the answer is larger than its input ({grown} characters against {given})"
            with self._counting:
                self.stats.grown += 1
            LOGGER.warning("compaction grew the history (%s): it is returned uncompacted", reason)
            self._tell(GuardEvent(judgement, before, after, (), "input", reason))
            return before
        with self._settling():
            mended = repair(
                before,
                after,
                judgement.facts,
                format=judgement.format,
                selection=self.selection,
                judge=self.judge_model,
            )
        if mended.lawful:
            for change in mended.changes:
                LOGGER.warning(
                    "compaction broke %s; repaired: %s (%s, %d -> %d %s)",
                    change.law,
                    change.what,
                    change.repair,
                    change.size_before,
                    change.size_after,
                    change.counter,
                )
            with self._counting:
                self.stats.repaired += 1
                for change in mended.changes:
                    self.stats.repairs[change.law] = self.stats.repairs.get(change.law, 0) + 1
            self._tell(GuardEvent(judgement, before, after, mended.changes, "repaired"))
            return mended.answer
        with self._counting:
            self.stats.unrepaired += 1
        budget = judgement.facts.budget if judgement.facts is not None else None
        if budget is not None and mended.size_input > budget.limit:
            reason = (
                f"{mended.reason}; the input measures {mended.size_input} {mended.counter}, over "
                f"the declared budget of {budget.limit} too: no lawful answer fits"
            )
            self._tell(GuardEvent(judgement, before, after, mended.changes, "nothing", reason))
            raise RepairError(judgement, reason)
        LOGGER.warning(
            "compaction broke %s; not repaired (%s): the history is returned uncompacted",
            _broken(judgement),
            mended.reason,
        )
        self._tell(GuardEvent(judgement, before, after, mended.changes, "input", mended.reason))
        return before

    def _tell(self, event: GuardEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


def _broken(judgement: Judgement) -> str:
    """The broken laws' ids, each once."""
    return ", ".join(dict.fromkeys(v.invariant for v in judgement.violations))


class AsyncGuarded(Protocol[History]):
    """What ``guard`` gives for an async compactor: an async function, with the guard's stats
    (``guarded`` is the guard itself)."""

    stats: GuardStats
    guarded: Guarded[History]

    def __call__(
        self, history: History, /, *args: Any, **kwargs: Any
    ) -> Coroutine[Any, Any, History]:
        """The coroutine of one guarded call."""
        ...


@overload
def guard(  # type: ignore[overload-overlap]  # the first that matches wins: async before plain
    compactor: Callable[..., Awaitable[History]],
    *,
    on_violation: Action | Callable[[GuardEvent], Any] = ...,
    sample: float = ...,
    invariants: Sequence[str] | None = ...,
    exclude: Sequence[str] = ...,
    facts: FactsSource = ...,
    format: Format | None = ...,
    seed: int | None = ...,
    on_event: Callable[[GuardEvent], Any] | None = ...,
    judge: str | None = ...,
) -> AsyncGuarded[History]: ...


@overload
def guard(
    compactor: Callable[..., History],
    *,
    on_violation: Action | Callable[[GuardEvent], Any] = ...,
    sample: float = ...,
    invariants: Sequence[str] | None = ...,
    exclude: Sequence[str] = ...,
    facts: FactsSource = ...,
    format: Format | None = ...,
    seed: int | None = ...,
    on_event: Callable[[GuardEvent], Any] | None = ...,
    judge: str | None = ...,
) -> Guarded[History]: ...


def guard(
    compactor: Callable[..., Any],
    *,
    on_violation: Action | Callable[[GuardEvent], Any] = "raise",
    sample: float = 1.0,
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    facts: FactsSource = None,
    format: Format | None = None,
    seed: int | None = None,
    on_event: Callable[[GuardEvent], Any] | None = None,
    judge: str | None = None,
) -> Guarded[Any] | AsyncGuarded[Any]:
    """``compactor`` with the messages laws judging its answers (see the module docstring).

    ``sample`` is the share of calls judged (1.0 every call, 0.1 one in ten on average, drawn
    from ``seed``); ``invariants`` and ``exclude`` choose the laws, as for ``check``;
    ``facts`` declares what the history must keep (a ``Facts``, a dict of some fields, or a
    function of the history giving either), the rest being inferred; ``format`` names the
    history's format (default: detected on the first call); ``on_event`` is called with the
    ``GuardEvent`` of each call that broke a law, after the guard chose what to return;
    ``judge`` (``openai:MODEL``, ``anthropic:MODEL``, ``cmd:PROGRAM``, as ``--judge``) settles
    the rulings the reading left for review, so that a loss it finds is a violation (and, with
    ``on_violation="repair"``, repaired); without one they never act. An ``async def``
    compactor gives an async function (``inspect.iscoroutinefunction`` says so, for frameworks
    that ask). A judge's answers are cached under ``.compactcheck/models``, as ``check``'s are.
    """
    if on_violation not in ACTIONS and not callable(on_violation):
        raise CompactcheckError(
            f"on_violation={on_violation!r}: expected 'raise', 'log', 'return_input', 'repair' "
            "or a callable taking a GuardEvent"
        )
    if on_event is not None and (not callable(on_event) or is_async(on_event)):
        raise CompactcheckError(
            "on_event: expected a plain function taking a GuardEvent (it is called, never awaited)"
        )
    if not 0.0 <= sample <= 1.0:
        raise CompactcheckError(f"sample={sample!r}: expected a share of calls from 0.0 to 1.0")
    if is_async(on_violation) and not is_async(compactor):
        raise CompactcheckError(
            "on_violation is async but the compactor is not: a plain guard cannot await it; "
            "pass a plain function, or guard an async def compactor"
        )
    if is_async(facts):
        raise CompactcheckError(
            "facts is an async function: the laws judge without awaiting; pass a plain function "
            "of the history, a Facts or a dict"
        )
    selection = Selection(invariants, exclude)
    selection.check(["messages"])
    judge_model = None
    if judge is not None:
        from compactcheck.models.judge import judge_slot  # only a judging guard loads models

        judge_model = judge_slot(judge).open()
    guarded: Guarded[Any] = Guarded(
        compactor,
        on_violation,
        sample,
        facts,
        check_format(format) if format is not None else None,
        selection,
        random.Random(seed),
        on_event=on_event,
        judge_model=judge_model,
    )
    if is_async(compactor):
        # A function, not the guard object: frameworks ask inspect.iscoroutinefunction whether
        # to await a processor, and on Python 3.11 only a function can answer yes.
        async def awaited(history: Any, /, *args: Any, **kwargs: Any) -> Any:
            return await guarded.awaited(history, *args, **kwargs)

        functools.update_wrapper(awaited, compactor, updated=())
        vars(awaited).update(stats=guarded.stats, guarded=guarded)
        async_guarded: AsyncGuarded[Any] = awaited  # type: ignore[assignment]
        return async_guarded
    # Its name and docstring, not its attributes (which could shadow the guard's own).
    functools.update_wrapper(guarded, compactor, updated=())
    return guarded


__all__ = ["AsyncGuarded", "GuardEvent", "GuardStats", "Guarded", "RepairError", "guard"]
