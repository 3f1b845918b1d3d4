"""Every test draws from its seed alone, whichever modules the session happened to load.

Hypothesis mixes constants from loaded local modules into its draws, so a derandomized test
would draw other examples depending on which tests ran before it in the same process (one
order under ``pytest -n 0``, another on each ``-n 2`` worker). See ``compactcheck/draws.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from compactcheck.draws import seed_only_draws


@pytest.fixture(autouse=True)
def _draws_from_the_seed_alone() -> Iterator[None]:
    with seed_only_draws():
        yield
