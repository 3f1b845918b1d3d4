"""Every built-in reference and mutant as a plain Python callable, for ``py:`` and ``cmd:`` targets.

An attribute of this module is named after a built-in target, ``:`` written as ``~`` (a ``py:``
spec splits at its last colon): ``reference-messages``, ``mutant~session_cut_by_count``; a
messages reference names its format after ``@`` (``reference-messages@gemini``). Each is the
very compactor the built-in target runs, behind the shape a ``py:`` callable of its view has:
messages, what ``reference_engine`` builds already; session, the session compactor itself;
snapshot, the frame's compactor between JSON data and models (editing the data it was handed in
place when the compactor edits its input, as the built-in one is seen to).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

from compactcheck.invariants import CompactorInput
from compactcheck.invariants.formats import CHAT, check_format
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.reference_engine.shared_semantics import SnapshotFrame

# The compactors are imported where an attribute is built, each from its own module: a worker
# process loading one of them (a few hundred per test session) imports that one alone.


def target_name(attribute: str) -> str:
    """The built-in target an attribute name stands for."""
    return attribute.partition("@")[0].replace("~", ":")


def attribute_name(target: str, format: str = CHAT) -> str:
    """The attribute of this module that is the built-in ``target`` (in ``format``)."""
    name = target.replace(":", "~")
    return f"{name}@{format}" if target == "reference-messages" else name


def _snapshot_callable(frame: SnapshotFrame) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def compact(data: dict[str, Any]) -> dict[str, Any]:
        handed = CompactorInput.from_json_data(data)
        given = handed.to_json_data()
        draft = frame.compactor.compact(handed)
        left = handed.to_json_data()
        if left != given:
            # The compactor edited its input: so is the data a py: callable is handed.
            data.clear()
            data.update(left)
        return draft.to_json_data()

    return compact


def same_frame(frame: SnapshotFrame) -> bool:
    """Whether a snapshot built-in is its compactor in the default frame, as a ``py:`` callable of
    the snapshot view is run (a mutant of the frame itself, its seal or tail, is not)."""
    default = SnapshotFrame(compactor=frame.compactor)
    fields = [field.name for field in dataclasses.fields(SnapshotFrame)]
    return all(getattr(frame, name) == getattr(default, name) for name in fields)


# Where the built-in mutants are defined, the cheapest to import first (the registry imports them
# all, and every other target besides).
_MUTANT_MODULES = (
    ("compactcheck.reference_engine.mutants.messages", "MESSAGE_MUTANTS"),
    ("compactcheck.reference_engine.mutants.formats", "FORMAT_MUTANTS"),
    ("compactcheck.reference_engine.mutants.session", "SESSION_MUTANTS"),
    ("compactcheck.reference_engine.mutants.snapshot", "SNAPSHOT_MUTANTS"),
)


def _mutant(name: str) -> Mutant:
    """The built-in mutant named ``name``, importing no more of the mutant modules than needed;
    KeyError if there is none."""
    for module, attribute in _MUTANT_MODULES:
        mutants: tuple[Mutant, ...] = getattr(importlib.import_module(module), attribute)
        for mutant in mutants:
            if mutant.name == name:
                return mutant
    raise KeyError(name)


def builtin_callable(attribute: str) -> Callable[[Any], Any]:
    """The built-in target's compactor as a plain callable of its view."""
    name, _, format = attribute.replace("~", ":").partition("@")
    if name == "reference-messages":
        from compactcheck.reference_engine.messages import reference_for

        return reference_for(check_format(format or CHAT), None)
    if name == "reference-session":
        from compactcheck.reference_engine.session import reference_session_compactor

        return reference_session_compactor()
    if name == "reference":
        from compactcheck.reference_engine.snapshot import SnapshotPipeline

        return _snapshot_callable(SnapshotPipeline())
    mutant = _mutant(name.removeprefix("mutant:"))
    built = mutant.build()
    if mutant.view == "snapshot":
        return _snapshot_callable(built)
    function: Callable[[Any], Any] = built
    return function


def __getattr__(attribute: str) -> Callable[[Any], Any]:
    if attribute.startswith("__"):
        raise AttributeError(attribute)
    try:
        return builtin_callable(attribute)
    except KeyError:
        raise AttributeError(attribute) from None
