"""Connectables: one string names a target and how to run it."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compactcheck.errors import CompactcheckError
from compactcheck.harness import (
    Driver,
    MessagesDriver,
    SessionDriver,
    SnapshotDriver,
    backend_session_compactor,
    backend_snapshot_frame,
)
from compactcheck.report.model import Implementation
from compactcheck.targets.adapters import ADAPTERS, DESCRIPTIONS
from compactcheck.targets.backend import Backend
from compactcheck.targets.inprocess import CallableBackend
from invariants import VIEWS, Budget, View
from reference_engine.messages import reference_messages
from reference_engine.mutants.messages import MESSAGE_MUTANTS
from reference_engine.mutants.mutant import Mutant
from reference_engine.mutants.session import SESSION_MUTANTS
from reference_engine.mutants.snapshot import SNAPSHOT_MUTANTS
from reference_engine.session import reference_session_compactor
from reference_engine.snapshot import SnapshotPipeline


class TargetError(CompactcheckError):
    """A connectable string that names nothing runnable."""


def all_mutants() -> dict[str, Mutant]:
    """Every built-in mutant by name."""
    return {
        mutant.name: mutant for mutant in (*SNAPSHOT_MUTANTS, *MESSAGE_MUTANTS, *SESSION_MUTANTS)
    }


@dataclass
class Target:
    """A compactor to fuzz: its name, what it is, and a driver per view it handles."""

    name: str
    implementation: Implementation
    drivers: dict[View, Callable[[], Driver]]
    backend: Backend | None = None
    notes: list[str] = field(default_factory=list)

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


def _builtin(name: str, description: str, drivers: dict[View, Callable[[], Driver]]) -> Target:
    implementation = Implementation(
        name=name, version="builtin", language="python", views=list(drivers)
    )
    return Target(name, implementation, drivers, notes=[description])


def _messages_target(
    name: str, function: Callable[[Any], Any], description: str, budget: Budget | None
) -> Target:
    backend = CallableBackend(function, name=name, views=("messages",))
    return _builtin(name, description, {"messages": lambda: MessagesDriver(backend, budget)})


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
    for mutant in all_mutants().values():
        targets[f"mutant:{mutant.name}"] = (
            mutant.view,
            f"{mutant.description} (breaks {mutant.targets}"
            + (
                f"; run with --malformed {','.join(mutant.malformed)})" if mutant.malformed else ")"
            ),
        )
    return targets


def _load_attribute(spec: str) -> Any:
    module_part, _, attribute = spec.rpartition(":")
    if not module_part or not attribute:
        raise TargetError(
            f"py:{spec}: expected py:package.module:attribute or py:path/to/file.py:attribute"
        )
    try:
        if module_part.endswith(".py") or "/" in module_part:
            path = Path(module_part)
            if not path.is_file():
                raise TargetError(f"py:{spec}: no file {module_part}")
            name = f"compactcheck_user_{abs(hash(path.resolve()))}"
            loader = importlib.util.spec_from_file_location(name, path)
            if loader is None or loader.loader is None:
                raise TargetError(f"py:{spec}: cannot load {module_part} as Python")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(module_part)
    except TargetError:
        raise
    except Exception as error:
        raise TargetError(
            f"py:{spec}: importing {module_part} failed: {type(error).__name__}: {error}"
        ) from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise TargetError(f"py:{spec}: {module_part} has no attribute {attribute!r}") from None


def _python_target(text: str, view: View | None, timeout: float, budget: Budget | None) -> Target:
    return python_target(_load_attribute(text.removeprefix("py:")), text, view, timeout, budget)


def python_target(
    attribute: Any, text: str, view: View | None, timeout: float, budget: Budget | None
) -> Target:
    """A target of a Python compactor: a callable, or an adapter object (``compact`` and
    ``implementation``), named ``text``."""
    if hasattr(attribute, "compact") and hasattr(attribute, "implementation"):
        backend: Backend = attribute
    elif callable(attribute):
        declared = getattr(attribute, "views", None)
        views: tuple[View, ...] = (
            tuple(declared) if declared else ((view,) if view else ("messages",))
        )
        backend = CallableBackend(
            attribute, name=getattr(attribute, "__name__", text), views=views, timeout=timeout
        )
    else:
        raise TargetError(
            f"{text}: expected a callable or an adapter object with compact() and "
            f"implementation, found {type(attribute).__name__}"
        )
    return _backend_target(text, backend, budget)


def _backend_target(name: str, backend: Backend, budget: Budget | None) -> Target:
    drivers: dict[View, Callable[[], Driver]] = {}
    views = backend.implementation.views
    if "messages" in views:
        drivers["messages"] = lambda: MessagesDriver(backend, budget)
    if "session" in views:
        drivers["session"] = lambda: SessionDriver(backend_session_compactor(backend))
    if "snapshot" in views:
        drivers["snapshot"] = lambda: SnapshotDriver(backend_snapshot_frame(backend))
    if not drivers:
        raise TargetError(f"{name}: declares no view compactcheck can drive ({views})")
    return Target(name, backend.implementation, drivers, backend)


def _command_target(text: str, timeout: float, budget: Budget | None) -> Target:
    from compactcheck.targets.subprocess_backend import CommandBackend

    command_line = text.removeprefix("cmd:")
    if not command_line.strip():
        raise TargetError(
            "cmd: needs a command line, e.g. cmd:node examples/node-harness/harness.js"
        )
    # The one place a command line is split (with its one-line error for an unclosed quote).
    backend = CommandBackend.from_command_line(command_line, timeout=timeout)
    return _backend_target(text, backend, budget)


def _adapter_target(text: str, timeout: float, budget: Budget | None) -> Target | None:
    """A third-party compactor named like ``langchain:trim_messages`` (see targets.adapters)."""
    factory = ADAPTERS.get(text)
    if factory is None:
        return None
    return _backend_target(text, factory(timeout=timeout, budget=budget), budget)


def resolve(
    text: str, *, view: View | None = None, timeout: float = 30.0, budget: Budget | None = None
) -> Target:
    """The target a connectable string names; TargetError when it names nothing.

    ``budget`` is handed to the messages driver (and to our own reference compactor), so that
    the budget law can judge what the caller declared.
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
            text, reference_messages(budget=budget), BUILTIN_DESCRIPTIONS[text], budget
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
            return _messages_target(text, mutant.build(), mutant.description, declared)
        if mutant.view == "session":
            compactor = mutant.build()
            return _builtin(text, mutant.description, {"session": lambda: SessionDriver(compactor)})
        pipeline = mutant.build()
        return _builtin(text, mutant.description, {"snapshot": lambda: SnapshotDriver(pipeline)})
    if text.startswith("py:"):
        return _python_target(text, view, timeout, budget)
    adapter = _adapter_target(text, timeout, budget)
    if adapter is not None:
        return adapter
    if text.startswith("cmd:"):
        return _command_target(text, timeout, budget)
    raise TargetError(
        f"{text!r}: unknown target; expected reference, reference-messages, mutant:NAME, "
        "py:module:attribute or cmd:COMMAND (see `compactcheck targets`)"
    )
