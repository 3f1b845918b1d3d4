"""Draws that depend on the seed alone, not on which of the caller's modules are loaded.

Hypothesis mixes constants from every loaded "local" module (any module outside the standard
library and site-packages: the user's code, their tests, an editable install) into about one
draw in twenty (``hypothesis.internal.conjecture.providers._get_local_constants``). A run of
``--seed S`` would then draw other histories from the pytest plugin than from the CLI, or after
a test that imported one more module. While the runner fuzzes a target, this module gives
Hypothesis an empty set of local constants, so that a seed names one sequence of histories.

This reaches into a private part of Hypothesis (pinned below 7 in ``pyproject.toml``);
``tests/compactcheck/engine/test_draws.py`` fails if a Hypothesis release moves it. Where an
installed Hypothesis has moved it, fuzzing still works: the block warns once, in one line, that
a seed may then draw other histories once other modules are loaded, and draws as Hypothesis does.
"""

from __future__ import annotations

import contextlib
import random
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis
import hypothesis.core
from hypothesis.internal.conjecture import providers


def _constants() -> Callable[[], Any] | None:
    """The class of an empty set of constants, where Hypothesis still has the hook it goes into;
    None where a release moved it."""
    try:
        from hypothesis.internal.constants_ast import Constants
    except ImportError:
        return None
    hooks = (
        getattr(providers, "_get_local_constants", None),
        getattr(providers, "CONSTANTS_CACHE", None),
    )
    return Constants if None not in hooks else None


_EMPTY = _constants()
# Hypothesis's own, for a caller that must draw the way Hypothesis would (our tests of this).
HYPOTHESIS_LOCAL_CONSTANTS = getattr(providers, "_get_local_constants", None)
MOVED = (
    f"Hypothesis {hypothesis.__version__} no longer has the private hook compactcheck uses to "
    "keep the constants of loaded modules out of its draws: a --seed then names one sequence "
    "of histories only while the same modules are loaded (install a Hypothesis of 6.x)"
)
_warned: list[bool] = []


def _no_local_constants() -> Any:
    # Installed only where the import below worked (_EMPTY is its class).
    from hypothesis.internal.constants_ast import Constants

    return Constants()


# The hook across threads: shards run side by side as threads of one process (``--in-flight``)
# each draw inside a block at once, and the hook is the module's, not the thread's. The last
# block to end, in any thread, puts back what the first found; a block nested in one thread
# puts back what it found, as a plain monkeypatch would, once no other thread is inside one.
_lock = threading.Lock()
_inside: dict[int, int] = {}
_base: list[Any] = []


def _enter() -> Any:
    with _lock:
        found = providers._get_local_constants
        if not _inside:
            _base[:] = [found]
        ident = threading.get_ident()
        _inside[ident] = _inside.get(ident, 0) + 1
        if found is not _no_local_constants:
            # The cache holds the local constants allowed per kind of draw: emptied both ways.
            providers.CONSTANTS_CACHE.cache.clear()
            providers._get_local_constants = _no_local_constants
        return found


def _leave(found: Any) -> None:
    with _lock:
        ident = threading.get_ident()
        depth = _inside.pop(ident) - 1
        if depth:
            _inside[ident] = depth
        if _inside.keys() - {ident}:
            # Another thread still draws inside a block: the hook stays ours until it ends.
            return
        back = found if found is not _no_local_constants or depth else _base[0]
        if back is not providers._get_local_constants:
            providers._get_local_constants = back
            providers.CONSTANTS_CACHE.cache.clear()


@contextlib.contextmanager
def seed_only_draws() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants from the caller's modules; safe in several
    threads at once (each one's draws stay its seed's while the others draw)."""
    if _EMPTY is None:
        if not _warned:
            _warned.append(True)
            warnings.warn(MOVED, RuntimeWarning, stacklevel=3)
        yield
        return
    found = _enter()
    try:
        yield
    finally:
        _leave(found)


def thread_random() -> None:
    """Give this thread the random instance Hypothesis keeps per thread, before its first test.

    Hypothesis makes one on a thread's first test and registers it (``register_random``), which
    collects the whole heap (``gc.collect``) to see whether anything holds it, and in a new
    thread often warns that nothing does (a HypothesisWarning about garbage collection) though
    nothing is wrong: a full collection and a false warning per lane. That instance only draws
    the seed of a test that has none; every search here has one (``@seed``), so it never draws,
    and it is made here unregistered. Where a Hypothesis release keeps it elsewhere, nothing is
    done and Hypothesis makes its own.
    """
    local = getattr(hypothesis.core, "threadlocal", None)
    if local is not None and getattr(local, "_hypothesis_global_random", 0) is None:
        local._hypothesis_global_random = random.Random()
