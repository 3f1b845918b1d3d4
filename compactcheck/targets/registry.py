"""Connectables: one string names a target and how to run it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from compactcheck.adapters import ADAPTERS, DESCRIPTIONS
from compactcheck.adapters.node_harness import DESCRIPTIONS as NODE_DESCRIPTIONS
from compactcheck.adapters.node_harness import is_node_target, node_backend
from compactcheck.backends.harness_process import HarnessStartError
from compactcheck.backends.inprocess import AwaitedAdapter, CallableBackend
from compactcheck.backends.isolated import LOAD_FAILED, worker_env
from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.backends.template import TemplateFork, addresses, template_for
from compactcheck.base.awaiting import is_async
from compactcheck.base.backend import Backend
from compactcheck.base.errors import CompactcheckError
from compactcheck.base.implementation import Implementation
from compactcheck.base.loading import (
    LoadError,
    callable_views,
    is_adapter_object,
    load_attribute,
    signature_problem,
)
from compactcheck.harness import (
    Driver,
    MessagesDriver,
    SessionDriver,
    SnapshotDriver,
    backend_session_compactor,
    backend_snapshot_frame,
)
from compactcheck.invariants import VIEWS, Budget, View
from compactcheck.invariants.formats import CHAT, Format, check_format
from compactcheck.models import MeteredModel, ModelSlot
from compactcheck.reference_engine.messages import reference_for
from compactcheck.reference_engine.mutants.formats import FORMAT_MUTANTS
from compactcheck.reference_engine.mutants.messages import MESSAGE_MUTANTS
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.reference_engine.mutants.session import SESSION_MUTANTS
from compactcheck.reference_engine.mutants.snapshot import SNAPSHOT_MUTANTS
from compactcheck.reference_engine.session import reference_session_compactor
from compactcheck.reference_engine.snapshot import SnapshotPipeline
from compactcheck.targets.calls import Calls, Isolation


class TargetError(CompactcheckError):
    """A connectable string that names nothing runnable."""


def all_mutants() -> dict[str, Mutant]:
    """Every built-in mutant by name."""
    return {
        mutant.name: mutant
        for mutant in (*SNAPSHOT_MUTANTS, *MESSAGE_MUTANTS, *FORMAT_MUTANTS, *SESSION_MUTANTS)
    }


@dataclass
class Target:
    """A compactor to fuzz: its name, what it is, and a driver per view it handles."""

    name: str
    implementation: Implementation
    drivers: dict[View, Callable[[], Driver]]
    backend: Backend | None = None
    notes: list[str] = field(default_factory=list)
    # Where the compactor runs: in this process, a crash of it ends the run.
    isolation: Isolation = "in-process"
    # The wire format its messages view is driven in (the run's, or the one it speaks).
    format: Format = CHAT
    # The model its summaries are written by (--model), metered; None: no slot (its own echo).
    model: MeteredModel | None = None

    @property
    def views(self) -> tuple[View, ...]:
        """The views this target handles."""
        return tuple(view for view in VIEWS if view in self.drivers)

    def stderr_tail(self) -> str:
        """Recent stderr of a subprocess target."""
        return self.backend.stderr_tail() if self.backend is not None else ""

    def close(self) -> None:
        """Release the target."""
        if self.backend is not None:
            self.backend.close()


def _builtin(
    name: str,
    description: str,
    drivers: dict[View, Callable[[], Driver]],
    format: Format = CHAT,
) -> Target:
    implementation = Implementation(
        name=name, version="builtin", language="python", views=list(drivers), formats=[format]
    )
    return Target(
        name, implementation, drivers, notes=[description], isolation="built-in", format=format
    )


def _messages_target(
    name: str,
    function: Callable[[Any], Any],
    description: str,
    budget: Budget | None,
    format: Format = CHAT,
) -> Target:
    backend = CallableBackend(function, name=name, views=("messages",))
    return _builtin(
        name, description, {"messages": lambda: MessagesDriver(backend, budget, format)}, format
    )


BUILTIN_DESCRIPTIONS = {
    "reference": "the snapshot reference engine (corrected design)",
    "reference-messages": "the reference message compactor",
    "reference-session": "the session reference engine (theopen-harness design)",
}


def builtin_targets() -> dict[str, tuple[View, str]]:
    """Every built-in target name with its view and a one-line description."""
    targets: dict[str, tuple[View, str]] = {
        "reference": ("snapshot", BUILTIN_DESCRIPTIONS["reference"]),
        "reference-messages": ("messages", BUILTIN_DESCRIPTIONS["reference-messages"]),
        "reference-session": ("session", BUILTIN_DESCRIPTIONS["reference-session"]),
    }
    targets.update(DESCRIPTIONS)
    targets.update(NODE_DESCRIPTIONS)
    for mutant in all_mutants().values():
        targets[f"mutant:{mutant.name}"] = (
            mutant.view,
            f"{mutant.description} (breaks {mutant.targets}"
            + (
                f"; run with --malformed {','.join(mutant.malformed)})" if mutant.malformed else ")"
            ),
        )
    return targets


def _python_target(
    text: str, view: View | None, calls: Calls, budget: Budget | None, format: Format
) -> Target:
    spec = text.removeprefix("py:")
    if not calls.in_process:
        # The worker loads the compactor; a spec that names nothing is its one-line error.
        backend = isolated_backend(spec, view, calls)
        return _backend_target(text, backend, budget, "worker process", format)
    try:
        attribute = load_attribute(spec)
    except LoadError as error:
        raise TargetError(str(error)) from None
    target = python_target(attribute, text, view, calls.timeout, budget, format)
    target.isolation = "in-process"
    return target


def isolated_backend(spec: str, view: View | None, calls: Calls) -> CommandBackend:
    """A backend running the compactor ``spec`` names in a worker process of its own."""
    argv = [sys.executable, "-m", "compactcheck.backends.isolated", spec]
    if view is not None:
        argv += ["--view", view]
    argv += ["--memory-limit", str(calls.memory_limit_mb)]
    env = worker_env()
    try:
        return CommandBackend(
            argv,
            timeout=calls.timeout,
            env=env,
            role="worker process",
            opaque_results=True,
            fork=_template_fork(spec, view, calls, env),
        )
    except HarnessStartError as error:
        if error.exit_code == LOAD_FAILED and error.last_words:
            raise TargetError(error.last_words) from None
        raise TargetError(f"py:{spec}: the worker process could not start: {error}") from None


def templates_for(names: Sequence[str], calls: Calls) -> Calls:
    """``calls`` naming a template for each isolated ``py:`` target of ``names`` (started now
    when this process has none yet and a run with workers wants them; see backends.template)."""
    if calls.in_process:
        return calls
    for name in names:
        if name.startswith("py:"):
            template_for(name.removeprefix("py:"), calls.memory_limit_mb, worker_env())
    return replace(calls, templates=addresses(calls.memory_limit_mb))


def _template_fork(
    spec: str, view: View | None, calls: Calls, env: dict[str, str]
) -> TemplateFork | None:
    """How the worker of ``spec`` is forked from a template: the one the run's owner started
    (named in ``calls``), or one this process starts when a run with workers wants one."""
    address = dict(calls.templates).get(spec)
    if address is None:
        template = template_for(spec, calls.memory_limit_mb, env)
        if template is None:
            return None
        address = template.address
    # As long as a fresh start may take to answer its handshake (CommandBackend's default).
    return TemplateFork(address, spec, view, spec, max(calls.timeout, 10.0))


def python_target(
    attribute: Any,
    text: str,
    view: View | None,
    timeout: float,
    budget: Budget | None,
    format: Format = CHAT,
) -> Target:
    """A target of a Python compactor: a callable, or an adapter object (``compact`` and
    ``implementation``), named ``text``."""
    if is_adapter_object(attribute):
        backend: Backend = (
            AwaitedAdapter(attribute, timeout=timeout) if is_async(attribute.compact) else attribute
        )
    elif callable(attribute):
        problem = signature_problem(attribute)
        if problem:
            raise TargetError(f"{text}: {problem}")
        views = cast(tuple[View, ...], callable_views(attribute, view))
        backend = CallableBackend(
            attribute, name=getattr(attribute, "__name__", text), views=views, timeout=timeout
        )
    else:
        raise TargetError(
            f"{text}: expected a callable or an adapter object with compact() and "
            f"implementation, found {type(attribute).__name__}"
        )
    return _backend_target(text, backend, budget, format=format)


def _backend_target(
    name: str,
    backend: Backend,
    budget: Budget | None,
    isolation: Isolation = "in-process",
    format: Format = CHAT,
) -> Target:
    drivers: dict[View, Callable[[], Driver]] = {}
    views = backend.implementation.views
    if "messages" in views:
        spoken = backend.implementation.formats
        if format not in spoken:
            raise TargetError(
                f"{name} speaks the {', '.join(spoken)} format(s), not {format}; run it with "
                f"--format {spoken[0]}, or declare the format (a harness: implementation."
                "formats in its start answer)"
            )
        drivers["messages"] = lambda: MessagesDriver(backend, budget, format)
    if "session" in views:
        drivers["session"] = lambda: SessionDriver(backend_session_compactor(backend))
    if "snapshot" in views:
        drivers["snapshot"] = lambda: SnapshotDriver(backend_snapshot_frame(backend))
    if not drivers:
        raise TargetError(f"{name}: declares no view compactcheck can drive ({views})")
    return Target(
        name, backend.implementation, drivers, backend, isolation=isolation, format=format
    )


def _command_target(text: str, timeout: float, budget: Budget | None, format: Format) -> Target:
    command_line = text.removeprefix("cmd:")
    if not command_line.strip():
        raise TargetError(
            "cmd: needs a command line, e.g. cmd:node examples/node-harness/harness.js"
        )
    # The one place a command line is split (with its one-line error for an unclosed quote).
    backend = CommandBackend.from_command_line(command_line, timeout=timeout)
    return _backend_target(text, backend, budget, "harness process", format)


def _adapter_target(
    text: str, timeout: float, budget: Budget | None, format: Format, model: ModelSlot | None
) -> Target | None:
    """A third-party compactor named like ``langchain:trim_messages`` (see compactcheck.adapters).

    An adapter speaks one format (its implementation says which); a run that names no other
    format drives it in that one.
    """
    factory = ADAPTERS.get(text)
    if factory is None:
        return None
    backend = factory(timeout=timeout, budget=budget, model=model)
    spoken = backend.implementation.formats
    chosen = check_format(spoken[0]) if format == CHAT and CHAT not in spoken else format
    target = _backend_target(text, backend, budget, "built-in", chosen)
    target.model = getattr(getattr(backend, "adapter", None), "model", None)
    return target


def _node_target(text: str, timeout: float, budget: Budget | None, format: Format) -> Target:
    """A JavaScript compactor of the Node harness package, named like ``node:ai-prune-messages``
    (see adapters.node_harness); driven in the first format it speaks unless the run names one."""
    backend = node_backend(text, timeout)
    spoken = backend.implementation.formats
    chosen = check_format(spoken[0]) if format == CHAT and CHAT not in spoken else format
    return _backend_target(text, backend, budget, "harness process", chosen)


def resolve(
    text: str,
    *,
    view: View | None = None,
    calls: Calls | None = None,
    budget: Budget | None = None,
    format: Format = CHAT,
    model: ModelSlot | None = None,
) -> Target:
    """The target a connectable string names; TargetError when it names nothing.

    ``calls`` sets each call's timeout and where a ``py:`` compactor runs (an isolated worker
    process unless ``calls.in_process``).

    ``budget`` is handed to the messages driver (and to our own reference compactor), so that
    the budget law can judge what the caller declared. ``format`` is the wire format of the
    messages view; a target that does not speak it is a TargetError. ``model`` is the slot a
    built-in summariser writes its summaries with (the others ignore it).
    """
    if text == "reference":
        return _builtin(
            text,
            BUILTIN_DESCRIPTIONS[text],
            {"snapshot": lambda: SnapshotDriver(SnapshotPipeline())},
        )
    if text == "reference-session":
        compactor = reference_session_compactor()
        return _builtin(
            text, BUILTIN_DESCRIPTIONS[text], {"session": lambda: SessionDriver(compactor)}
        )
    if text == "reference-messages":
        return _messages_target(
            text,
            reference_for(format, budget),
            BUILTIN_DESCRIPTIONS[text],
            budget,
            format,
        )
    if text.startswith("mutant:"):
        mutant = all_mutants().get(text.removeprefix("mutant:"))
        if mutant is None:
            raise TargetError(
                f"{text}: no such mutant; `compactcheck targets` lists the {len(all_mutants())} "
                "built-in ones"
            )
        if mutant.view == "messages":
            # A mutant of the budget law is judged against the budget it was built to break.
            declared = mutant.budget if budget is None else budget
            spoken = check_format(mutant.format or CHAT)
            if format not in (CHAT, spoken):
                raise TargetError(f"{text} speaks the {spoken} format, not {format}")
            return _messages_target(text, mutant.build(), mutant.description, declared, spoken)
        if mutant.view == "session":
            compactor = mutant.build()
            return _builtin(text, mutant.description, {"session": lambda: SessionDriver(compactor)})
        pipeline = mutant.build()
        return _builtin(text, mutant.description, {"snapshot": lambda: SnapshotDriver(pipeline)})
    calls = calls or Calls()
    if text.startswith("py:"):
        return _python_target(text, view, calls, budget, format)
    adapter = _adapter_target(text, calls.timeout, budget, format, model)
    if adapter is not None:
        return adapter
    if is_node_target(text):
        return _node_target(text, calls.timeout, budget, format)
    if text.startswith("cmd:"):
        return _command_target(text, calls.timeout, budget, format)
    raise TargetError(
        f"{text!r}: unknown target; expected reference, reference-messages, mutant:NAME, "
        "py:module:attribute or cmd:COMMAND (see `compactcheck targets`)"
    )
