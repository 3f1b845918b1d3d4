"""The cycle collector's settings around a search: a young generation for a case, a settled heap."""

from __future__ import annotations

import contextlib
import gc
import warnings
from collections.abc import Iterator

from hypothesis.errors import HypothesisWarning

from compactcheck.engine.draws import seed_only_draws

# The young generation's size while searching: a case allocates tens of thousands of objects
# that live as long as the case, and at Python's default of 700 each was walked by several
# collections before it died (a tenth of a run); at this size a case's own objects mostly die
# before a collection sees them, and a cycle still waits for at most this many allocations.
_SEARCH_GENERATION_0 = 10_000
# How much the heap a search finds may outgrow the heap the last collection left, before the
# search collects it first (see ``settled_heap``).
_HEAP_GROWTH = 1.5
_settled_size = 0


@contextlib.contextmanager
def settled_heap() -> Iterator[None]:
    """The objects alive before a search left out of the collector's full passes meanwhile,
    and a young generation big enough for a case.

    A search makes garbage fast, and each full pass of the cycle collector walks every object
    of the process (Hypothesis's, pydantic's schemas, the modules): about a fifth of a run went
    there. ``gc.freeze`` sets the objects alive now aside until ``gc.unfreeze``; those that die
    meanwhile are still freed as usual, only a cycle among them waits for the unfreeze.

    What a finished search leaves is mostly cycles (Hypothesis's state for its test, the run's
    outcomes), and the next search's freeze would set them aside as if alive: over the 140
    searches of the mutant table they grew to three million objects (760 MB), which a later
    full pass took 3.5 seconds to free. So a search whose heap has grown by half since the last
    collection collects it before freezing (about 20 ms for a fresh process). A heap someone
    else froze is left to them; the thresholds are put back as they were either way.
    """
    global _settled_size
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _SEARCH_GENERATION_0), *thresholds[1:])
    try:
        if gc.get_freeze_count():
            yield
            return
        gc.freeze()
        if gc.get_freeze_count() > _HEAP_GROWTH * _settled_size:
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            _settled_size = gc.get_freeze_count()
        try:
            yield
        finally:
            gc.unfreeze()
    finally:
        gc.set_threshold(*thresholds)


@contextlib.contextmanager
def searching() -> Iterator[None]:
    """Around one Hypothesis search: seed-only draws, no warning on huge reprs, a settled heap."""
    # Hypothesis formats a failing case of tens of kilobytes for its own report, which is never
    # shown: our witness is.
    with seed_only_draws(), warnings.catch_warnings(), settled_heap():
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        yield
