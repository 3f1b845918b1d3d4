"""Where a run keeps what it finds: the ``.compactcheck`` folder of the project being tested.

A run writes its crash corpus (``corpus/``), its example database (``hypothesis/``) and a
campaign's report under one state folder. Unless the user names one, that folder is
``.compactcheck`` at the root of the project the target's code belongs to: the nearest folder
above the target's file that holds a ``pyproject.toml``, ``setup.py``, ``setup.cfg``,
``package.json`` or ``.git``. A target with no file of its own (a built-in one, an installed
package) uses the project the run was started in, found the same way from the working
directory. The run always says which folder it chose, and why.
"""

from __future__ import annotations

import importlib.machinery
import inspect
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compactcheck.base.errors import CompactcheckError

STATE_DIR = ".compactcheck"
CORPUS = "corpus"
# What marks the root of a project.
MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", ".git")
_INSTALLED = ("site-packages", "dist-packages")


class LocationError(CompactcheckError):
    """The targets of one run belong to different projects, and no folder was named."""


@dataclass(frozen=True)
class StateDir:
    """The chosen state folder and why it was chosen."""

    path: Path
    why: str

    @property
    def corpus(self) -> Path:
        """Its crash corpus folder."""
        return self.path / CORPUS


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a project marker; None if none does."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in MARKERS):
            return folder
    return None


def _installed(path: Path) -> bool:
    return any(part in _INSTALLED for part in path.parts)


def _module_file(module: str) -> Path | None:
    """The file of a module's top-level package, found without importing anything."""
    top = module.split(".")[0]
    search = [os.getcwd(), *(entry for entry in sys.path if entry)]
    spec = importlib.machinery.PathFinder.find_spec(top, search)
    if spec is None or spec.origin is None or spec.origin in ("built-in", "frozen"):
        return None
    return Path(spec.origin)


def target_file(name: str, cwd: Path | None = None) -> Path | None:
    """The file holding a target's code, when it is the user's own (not an installed package);
    relative paths are taken from ``cwd`` (the working directory by default)."""
    base = cwd or Path.cwd()
    found: Path | None = None
    if name.startswith("py:"):
        module_part = name.removeprefix("py:").rpartition(":")[0]
        if module_part.endswith(".py") or "/" in module_part or os.sep in module_part:
            found = base / module_part
        elif module_part:
            found = _module_file(module_part)
    elif name.startswith("cmd:"):
        try:
            words = shlex.split(name.removeprefix("cmd:"))
        except ValueError:
            return None
        # The first argument that is a file: the script an interpreter runs, or the program.
        found = next((base / word for word in words if (base / word).is_file()), None)
    if found is None or not found.exists() or _installed(found.resolve()):
        return None
    return found


def callable_file(function: Callable[..., Any] | object) -> Path | None:
    """The file a Python callable (or adapter object) was defined in, if it is the user's."""
    try:
        source = inspect.getsourcefile(function if callable(function) else type(function))
    except TypeError:
        return None
    if source is None or _installed(Path(source).resolve()):
        return None
    return Path(source)


def callable_target(function: object, corpus_dir: Path) -> str:
    """The ``py:`` name a callable handed to ``fuzz()`` is recorded under, so that ``replay``
    loads it again: ``py:pkg.mod:name`` for a module-level name in a package or an installed
    module, else ``py:FILE.py:name`` (a script run as ``__main__`` too), FILE relative to the
    project the corpus is in (absolute outside it), so that it survives a checkout move.

    A callable with no module-level name (a lambda, a closure, a method) is named by its
    qualified name, which ``replay`` says it cannot load (and how to name another).
    """
    module = inspect.getmodule(function if callable(function) else type(function))
    label = getattr(function, "__qualname__", f"{type(function).__qualname__}()")
    if module is None:
        return f"py:{label}"
    names = [getattr(function, "__name__", None), *vars(module)]
    name = next(
        (n for n in names if isinstance(n, str) and getattr(module, n, None) is function), None
    )
    spec, file = module.__spec__, getattr(module, "__file__", None)
    # `python -m pkg.mod` runs pkg.mod as __main__: importable under its own name.
    module_name = spec.name if module.__name__ == "__main__" and spec else module.__name__
    in_package = spec is None or bool(spec.parent)
    if file is None or (module_name != "__main__" and (in_package or _installed(Path(file)))):
        # A module in a package is imported by name: loaded as a file, its relative imports
        # would fail. (An interactive session's __main__ has no file: replay says so.)
        return f"py:{module_name}:{name or label}"
    path = Path(file).resolve()
    root = project_root(corpus_dir)
    shown = path.relative_to(root).as_posix() if root and path.is_relative_to(root) else path
    return f"py:{shown}:{name or label}"


def state_dir(files: Sequence[tuple[str, Path | None]], cwd: Path | None = None) -> StateDir:
    """The state folder for targets ``(name, file)``: see the module's docstring."""
    roots: dict[Path, str] = {}
    for name, file in files:
        if file is not None:
            root = project_root(file.parent) or file.parent.resolve()
            roots.setdefault(root, name)
    if len(roots) > 1:
        listed = ", ".join(f"{name} in {root}" for root, name in roots.items())
        raise LocationError(
            f"the targets belong to different projects ({listed}); name the folder for what "
            "the run finds with --corpus PATH"
        )
    if roots:
        [(root, name)] = roots.items()
        return StateDir(root / STATE_DIR, f"the project of {name}")
    here = (cwd or Path.cwd()).resolve()
    started_in = project_root(here)
    if started_in is not None:
        return StateDir(started_in / STATE_DIR, "the project the run was started in")
    return StateDir(here / STATE_DIR, "the working directory (no project folder above it)")


def for_targets(names: Sequence[str], cwd: Path | None = None) -> StateDir:
    """The state folder for targets named as on the command line."""
    return state_dir([(name, target_file(name, cwd)) for name in names], cwd)
