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
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis
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


@contextlib.contextmanager
def seed_only_draws() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants from the caller's modules."""
    if _EMPTY is None:
        if not _warned:
            _warned.append(True)
            warnings.warn(MOVED, RuntimeWarning, stacklevel=3)
        yield
        return
    previous = providers._get_local_constants
    # The cache holds the local constants allowed per kind of draw: empty it both ways.
    providers.CONSTANTS_CACHE.cache.clear()
    providers._get_local_constants = _no_local_constants
    try:
        yield
    finally:
        providers._get_local_constants = previous
        providers.CONSTANTS_CACHE.cache.clear()
