"""The library face: fuzz a compactor, or judge one compaction you already have."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compactcheck.base.awaiting import discarded
from compactcheck.base.errors import CompactcheckError
from compactcheck.base.selection import Selection
from compactcheck.invariants import Budget, Facts, View
from compactcheck.invariants.formats import Format, check_format
from compactcheck.observed.judging import Judgement, PairError, ViolationError, check_pair
from compactcheck.options import BY_KEY, OPTIONS, OptionError, default, settle
from compactcheck.options.given import checked_in_code
from compactcheck.options.kinds import REPORTS

# What only fuzzing needs (the engine, Hypothesis, the strategies, the targets) is imported by
# `fuzz` itself, so that `check` and the guard, which run in production, load none of it.
if TYPE_CHECKING:
    from compactcheck.engine.events import Event
    from compactcheck.models import MeteredModel, Model, ModelSlot
    from compactcheck.report.model import Report
    from compactcheck.targets.registry import Target, resolve


# fuzz()'s keyword defaults, the table's (``compactcheck.options``): written nowhere else.
_DEFAULT: dict[str, Any] = {option.key: default(option.key) for option in OPTIONS}


def _default_corpus(compactor: str | Callable[..., Any]) -> Path:
    from compactcheck.corpus import location

    if isinstance(compactor, str):
        return location.for_targets([compactor]).corpus
    return location.state_dir([("the compactor", location.callable_file(compactor))]).corpus


def _opened_judge(judge: str | ModelSlot | None) -> MeteredModel | None:
    if judge is None:
        return None
    from compactcheck.models.judge import judge_slot

    slot = judge_slot(judge) if isinstance(judge, str) else judge
    return slot.shared().open()


def _slot(model: str | ModelSlot | Model | None) -> ModelSlot | None:
    from compactcheck.models import ModelSlot, check_name

    if model is None or isinstance(model, ModelSlot):
        return model
    if isinstance(model, str):
        return ModelSlot(check_name(model))
    return ModelSlot(model.name, source=model)


def fuzz(
    compactor: str | Callable[..., Any],
    *,
    view: View | None = _DEFAULT["view"],
    max_examples: int = _DEFAULT["max_examples"],
    seed: int = _DEFAULT["seed"],
    rounds: int = _DEFAULT["rounds"],
    invariants: Sequence[str] | None = _DEFAULT["invariants"],
    exclude: Sequence[str] = _DEFAULT["exclude_invariants"],
    budget: int | Budget | None = _DEFAULT["budget"],
    counter: str | Callable[[str], int] | None = _DEFAULT["counter"],
    timeout: float = _DEFAULT["timeout"],
    in_process: bool = _DEFAULT["in_process"],
    memory_limit_mb: int = _DEFAULT["memory_limit"],
    # The table's option is --no-shrink: shrinking is on unless told not to.
    shrink: bool = not _DEFAULT["no_shrink"],
    workers: int = _DEFAULT["workers"],
    in_flight: int | None = _DEFAULT["in_flight"],
    corpus_dir: str | Path | None = _DEFAULT["corpus"],
    on_event: Callable[[Event], None] | None = _DEFAULT["on_event"],
    transcripts: str | Path | None = _DEFAULT["transcripts"],
    model: str | ModelSlot | Model | None = _DEFAULT["model"],
    judge: str | ModelSlot | None = _DEFAULT["judge"],
    strict_review: bool = _DEFAULT["strict_review"],
    format: Format = _DEFAULT["format"],
    malformed: Sequence[str] = _DEFAULT["malformed"],
    verbatim: bool = _DEFAULT["verbatim"],
    min_exercised: int = _DEFAULT["min_exercised"],
    max_total_examples: int | None = _DEFAULT["max_total_examples"],
    redis: str | None = _DEFAULT["redis"],
    redis_read_only: bool = _DEFAULT["redis_read_only"],
    json: str | Path | None = _DEFAULT["json"],
    junit: str | Path | None = _DEFAULT["junit"],
    markdown: str | Path | None = _DEFAULT["markdown"],
    html: str | Path | None = _DEFAULT["html"],
) -> Report:
    """Fuzz a compactor and report every law's verdict, as ``compactcheck run`` would.

    ``compactor`` is a target name (``"reference-messages"``, ``"py:pkg.mod:compact"``,
    ``"cmd:node harness.js"``, a built-in adapter) or a Python callable that takes a list of
    chat message dicts and returns the compacted list (an adapter object with ``compact`` and
    ``implementation`` works too; either may be ``async def``, and is awaited). A callable runs
    in this process, so ``workers`` and ``in_flight`` must be 1;
    a ``py:`` target runs in an isolated worker process (each with ``memory_limit_mb`` of address
    space), so that a crash, exit or hang of the compactor is a finding of that call, unless
    ``in_process`` is set (faster; a crash there ends the run).
    The run is reproducible: the same seed draws the same histories. Failing histories are
    written to ``corpus_dir`` as soon as they are found (by default ``.compactcheck/corpus`` at
    the root of the project the compactor's code belongs to). ``on_event`` sees the run's events.
    ``transcripts`` (a file or folder of recorded transcripts,
    ``compactcheck.observed.transcripts``) replaces generated histories by pieces of them, each
    transcript also run whole; the messages view only, with facts inferred from each round's
    input.
    ``model`` is what a built-in summariser writes with: a name as ``--model`` takes it
    (``"paraphrase"``, ``"openai:gpt-4o-mini"``), a ``ModelSlot`` (its cache, cap, offline) or a
    ``Model`` object (an ``OpenAIModel`` on your own client, say), recorded beside the corpus.
    ``judge`` (a name as ``--judge`` takes it, or a slot:
    ``compactcheck.models.judge.judge_slot``) settles the rulings left for review, and
    ``strict_review`` makes an item for review fail its law, as ``--strict-review`` does.
    ``budget`` is the declared size of a compacted list, as ``--budget`` takes it (a number) or
    a ``Budget``; ``counter`` is what it is counted in, as ``--counter`` takes it
    (``approx_tokens`` by default: characters / 4, rounded up; ``tokens:o200k_base``;
    ``py:module:function``) or a function of your own that takes one text and returns its size.
    ``format``, ``malformed`` and ``verbatim`` are ``run``'s ``--format``, ``--malformed`` and
    ``--verbatim``: the wire format a messages target is handed (a callable then takes and
    returns that provider's request), the named invalid-input scenarios to include, and reading
    each fact by its exact text. ``workers`` and ``in_flight`` are ``run``'s ``--workers`` and
    ``--in-flight``: worker processes, and the shards run at once as their threads (for a
    compactor that waits on a model; docs/how-to/worker-count.md). ``min_exercised`` and
    ``max_total_examples`` are ``run``'s coverage-directed exploring; ``redis`` (a URL) shares
    the example database as ``run --profile campaign --redis`` does (``redis_read_only``: replay
    it without writing); ``json``, ``junit``, ``markdown`` and ``html`` name report files to
    write. Every value is checked as ``run`` checks its options (``compactcheck.options``): a
    bad one is a one-line ``CompactcheckError``.
    """
    from compactcheck.corpus import location
    from compactcheck.engine.config import check_options, from_options
    from compactcheck.engine.core import Engine, follow
    from compactcheck.observed.transcripts import Transcript, load_transcripts
    from compactcheck.targets.calls import Calls
    from compactcheck.targets.registry import python_target

    format = check_format(format)
    given = {
        "view": view,
        "max_examples": max_examples,
        "seed": seed,
        "rounds": rounds,
        "invariants": invariants,
        "exclude_invariants": exclude,
        "timeout": timeout,
        "in_process": in_process,
        "memory_limit": memory_limit_mb,
        "no_shrink": not shrink if isinstance(shrink, bool) else shrink,
        "workers": workers,
        "in_flight": in_flight,
        "transcripts": transcripts,
        "malformed": malformed or None,
        "verbatim": verbatim,
        "min_exercised": min_exercised,
        "max_total_examples": max_total_examples,
        "redis": redis,
        "redis_read_only": redis_read_only,
        "judge": judge if isinstance(judge, str) else None,
        "strict_review": strict_review,
        "budget": budget,
        "counter": counter,
        **{name: path for name, path in zip(REPORTS, (json, junit, markdown, html), strict=True)},
    }
    values = {**_checked(given), "format": format}
    # Without one given (or a Budget's), the table's own counter.
    values["counter"] = values["counter"] or BY_KEY["counter"].default
    declared = (
        Budget(limit=values["budget"], counter=values["counter"]) if values["budget"] else None
    )
    check_options(values, "library")
    loaded: tuple[Transcript, ...] = ()
    if values["transcripts"] is not None:
        view = "messages"
        loaded = tuple(load_transcripts(values["transcripts"]))
    config = from_options(
        values,
        # A shared database is a campaign's; without one a call replays its seed as ci.
        settle("library", values),
        corpus_dir=Path(corpus_dir) if corpus_dir is not None else _default_corpus(compactor),
        transcripts=loaded,
        model=_slot(model),
        # A judge given as a slot (its cache, cap, offline); a name becomes one from the values.
        judge=judge if not isinstance(judge, str) else None,
    )
    calls = Calls.from_options(values)
    engine = Engine(config, calls=calls, workers=workers, in_flight=values["in_flight"])
    if isinstance(compactor, str):
        targets = engine.open([compactor], view)
    else:
        if engine.lanes != 1:
            raise CompactcheckError(
                "a Python callable runs in this process: workers and in_flight must be 1 (name "
                "it as py:module:attribute to fuzz it in worker processes or lanes)"
            )
        name = location.callable_target(compactor, config.corpus_dir)
        targets = [python_target(compactor, name, view, timeout, declared, format)]
        try:
            engine.check(targets, view)
        except BaseException:
            targets[0].close()
            raise
    try:
        if engine.lanes > 1:
            for target in targets:
                target.close()
        report = follow(engine.run(targets, view), on_event or (lambda _: None))
    finally:
        for target in targets:
            target.close()
    _write(report, {name: values[name] for name in REPORTS})
    return report


def _checked(given: Mapping[str, Any]) -> dict[str, Any]:
    """``fuzz()``'s keywords (keyed as the options table names them) as checked values, or a
    one-line error naming the keyword."""
    from compactcheck.engine.config import RunOptionError

    try:
        values = checked_in_code(given, lambda key, value: f"fuzz({BY_KEY[key].library}={value!r})")
    except OptionError as error:
        raise RunOptionError(str(error)) from None
    for key in ("malformed", "exclude_invariants"):
        values[key] = values[key] or ()
    return values


def _write(report: Report, paths: Mapping[str, Path | None]) -> None:
    """Write the report files ``fuzz()`` was asked for."""
    from compactcheck.render import FORMATS
    from compactcheck.report.io import write_report, write_text

    for name, path in paths.items():
        if path is not None and name == "json":
            write_report(report, path)
        elif path is not None:
            write_text(path, FORMATS[name](report))


def check(
    before: Any,
    after: Any,
    facts: Facts | dict[str, Any] | None = None,
    *,
    view: View = "messages",
    invariants: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    format: Format | None = None,
    judge: str | ModelSlot | None = None,
) -> Judgement:
    """Judge one compaction: ``before`` went in, ``after`` came out.

    Plain JSON data is accepted everywhere (parsed models too). For the messages view both are
    chat completions (a list of chat dicts) or a provider request (Anthropic ``{"system",
    "messages"}``, Responses ``{"instructions", "input"}``, Gemini ``{"systemInstruction",
    "contents"}``, or the bare history list), in ``format`` or in the format detected from their
    shape; a provider format is judged by its structural laws and, through its chat reading, by
    every other messages law. For the snapshot view ``before`` is the compactor input the
    protocol hands over (``{"state", "events"}``) and ``after`` the draft it answered; for the
    session view ``before`` is ``{"log", "mode"}`` and ``after`` the answer.

    ``facts`` is what the history must keep (a ``Facts``, or a dict of some of its fields). What
    a dict leaves out of the goal, constraints and must-keep identifiers is inferred from the
    history (``Judgement.inferred`` names it, and a violation judged on it says so); a ``Facts``
    is taken as declared whole. The snapshot and session views read their facts from the state
    and the log. ``judge`` (a name as ``--judge`` takes it, or a slot) settles the rulings the
    reading left for review. Raises ``CompactcheckError`` with one line for data that is not
    such a pair.
    """
    for side, value in (("before", before), ("after", after)):
        if inspect.isawaitable(value):
            discarded(value)
            raise PairError(
                f"check: {side} is an awaitable, not a history: await the compactor first "
                "(after = await compact(before))"
            )
    try:
        return check_pair(
            before,
            after,
            facts,
            view=view,
            format=format,
            selection=Selection(invariants, exclude),
            judge=_opened_judge(judge),
        )
    except PairError as error:
        raise PairError(f"check: {error}") from None


def __getattr__(name: str) -> Any:
    # Target and resolve were re-exported here; they load the targets (and Hypothesis), so only
    # when asked for.
    if name in ("Target", "resolve"):
        from compactcheck.targets import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'compactcheck.api' has no attribute {name!r}")


__all__ = ["Judgement", "Target", "ViolationError", "check", "fuzz", "resolve"]
