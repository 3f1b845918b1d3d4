"""Draws that depend on the seed alone, not on which of the caller's modules are loaded.

Hypothesis mixes constants from every loaded "local" module (any module outside the standard
library and site-packages: the user's code, their tests, an editable install) into about one
draw in twenty (``hypothesis.internal.conjecture.providers._get_local_constants``). A run of
``--seed S`` would then draw other histories from the pytest plugin than from the CLI, or after
a test that imported one more module. While the runner fuzzes a target, this module gives
Hypothesis an empty set of local constants, so that a seed names one sequence of histories.

This reaches into a private part of Hypothesis (pinned below 7 in ``pyproject.toml``);
``tests/compactcheck/engine/test_draws.py`` fails if a Hypothesis release moves it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

# Hypothesis's own, for a caller that must draw the way Hypothesis would (our tests of this).
HYPOTHESIS_LOCAL_CONSTANTS = providers._get_local_constants


def _no_local_constants() -> Constants:
    return Constants()


@contextlib.contextmanager
def seed_only_draws() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants from the caller's modules."""
    previous = providers._get_local_constants
    # The cache holds the local constants allowed per kind of draw: empty it both ways.
    providers.CONSTANTS_CACHE.cache.clear()
    providers._get_local_constants = _no_local_constants
    try:
        yield
    finally:
        providers._get_local_constants = previous
        providers.CONSTANTS_CACHE.cache.clear()
