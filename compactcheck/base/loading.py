"""Finding a Python compactor from a ``py:`` spec, in this process or in an isolated worker.

Standard library only (and ``calling``), so that a worker starts quickly.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from compactcheck.base.calling import code_of


class LoadError(Exception):
    """A ``py:`` spec that names nothing loadable; the message is one line for the user."""


def split_spec(spec: str) -> tuple[str, str]:
    """``module:attribute`` or ``path/to/file.py:attribute`` as its two parts."""
    module_part, _, attribute = spec.rpartition(":")
    if not module_part or not attribute:
        raise LoadError(
            f"py:{spec}: expected py:package.module:attribute or py:path/to/file.py:attribute"
        )
    return module_part, attribute


def is_file_spec(module_part: str) -> bool:
    """Whether the module part names a file rather than an importable module."""
    return module_part.endswith(".py") or "/" in module_part or os.sep in module_part


def load_attribute(spec: str) -> Any:
    """The object a ``py:`` spec (without its prefix) names, importing what it needs.

    A module name is imported the way ``python -m`` would find it: from the working directory
    first, then the rest of the import path.
    """
    module_part, attribute = split_spec(spec)
    try:
        if is_file_spec(module_part):
            path = Path(module_part)
            if not path.is_file():
                raise LoadError(f"py:{spec}: no file {module_part}")
            # As `python file.py` would: the file's own folder first, so that its imports of
            # modules beside it (a user's strategies.py, say) find them.
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            name = f"compactcheck_user_{abs(hash(path.resolve()))}"
            loader = importlib.util.spec_from_file_location(name, path)
            if loader is None or loader.loader is None:
                raise LoadError(f"py:{spec}: cannot load {module_part} as Python")
            module = importlib.util.module_from_spec(loader)
            sys.modules[name] = module
            loader.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_part)
    except LoadError:
        raise
    except Exception as error:
        raise LoadError(
            f"py:{spec}: importing {module_part} failed: {type(error).__name__}: {error}"
        ) from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise LoadError(f"py:{spec}: {module_part} has no attribute {attribute!r}") from None


def is_adapter_object(attribute: Any) -> bool:
    """An adapter object (``compact(view, payload)`` and ``implementation``), not a callable."""
    return hasattr(attribute, "compact") and hasattr(attribute, "implementation")


def callable_views(attribute: Any, view: str | None) -> tuple[str, ...]:
    """The views a plain callable handles: its own ``views``, else the one asked for, else
    messages."""
    declared = getattr(attribute, "views", None)
    return tuple(declared) if declared else ((view,) if view else ("messages",))


def signature_problem(attribute: Any) -> str:
    """Why a plain callable cannot be called with the one argument a view hands it, or ''.

    Judged once when it is loaded, so that ``def compact():`` (or one with two required
    arguments) is one line naming the user's file, not an error on every call.
    """
    try:
        signature = inspect.signature(attribute)
    except (TypeError, ValueError):
        # No signature to read (some builtins): the calls will tell.
        return ""
    try:
        signature.bind(None)
    except TypeError as error:
        name = getattr(attribute, "__name__", None) or type(attribute).__name__
        code = code_of(attribute)
        where = f" (at {code.co_filename}:{code.co_firstlineno})" if code is not None else ""
        # Where it is defined comes first, before Python's own words for the mismatch.
        return (
            f"{name}{signature}{where} cannot take the one argument a compactor is handed "
            f"(the history of its view): {error}"
        )
    return ""
