"""The cycle collector's settings around a search: a young generation for a case, a settled heap."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

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
# The heap's size (allocated memory blocks) that the last collection before a search left.
_settled_size = 0
# The module the workers' fork server freezes its heap in, before it forks them.
_PRELOADED = "compactcheck.scale.preload"


# Searches running side by side in threads of one process share the collector and the warning
# filters, which are the process's: the first search to start settles them, the last to end
# puts them back, and those between find them settled.
_lock = threading.Lock()
_searches = 0
# What the first search found, put back by the last: the thresholds, and whether it froze.
_found: list[tuple[tuple[int, int, int], bool]] = []
_LARGE_REPR = "Generating overly large repr"


def _frozen_by_others() -> bool:
    """Whether someone else set the heap aside: the workers' fork server does, before it forks
    them (``scale.preload``); anyone else would be counted by ``gc.get_freeze_count``.

    That count walks every object set aside (14 ms for a worker's heap), and a run of many
    shards asked it twice a search: a tenth of a run's CPU. Nothing is set aside while no
    search runs here, unless someone else did it, so the walk is short then.
    """
    return _PRELOADED in sys.modules or bool(gc.get_freeze_count())


def _settle() -> None:
    global _settled_size
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _SEARCH_GENERATION_0), *thresholds[1:])
    froze = not _frozen_by_others()
    if froze:
        # The heap's size in memory blocks, read at once (a count of its objects walks them).
        if sys.getallocatedblocks() > _HEAP_GROWTH * _settled_size:
            gc.collect()
            _settled_size = sys.getallocatedblocks()
        gc.freeze()
    _found[:] = [(thresholds, froze)]


def _unsettle() -> None:
    [(thresholds, froze)] = _found
    if froze:
        gc.unfreeze()
    gc.set_threshold(*thresholds)


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
    collection (in memory blocks) collects it before freezing (about 20 ms for a fresh
    process). A heap someone else froze is left to them; the thresholds are put back as they
    were either way. Searches side by side in threads share one settling: the first one's,
    undone by the last.
    """
    global _searches
    with _lock:
        if not _searches:
            _settle()
        _searches += 1
    try:
        yield
    finally:
        with _lock:
            _searches -= 1
            if not _searches:
                _unsettle()


@contextlib.contextmanager
def _quiet_reprs() -> Iterator[None]:
    """Hypothesis's warning of a huge repr left unsaid while searches run (in any thread).

    Hypothesis formats a failing case of tens of kilobytes for its own report, which is never
    shown: our witness is. The filter is added to the process's own list and taken out again,
    not set in a copy of the list that is put back (``warnings.catch_warnings``), which in
    threads would put back one search's copy under another's feet.
    """
    global _filtering
    with _lock:
        if not _filtering:
            warnings.filterwarnings("ignore", _LARGE_REPR, HypothesisWarning)
            _filter[:] = [warnings.filters[0]]
        _filtering += 1
    try:
        yield
    finally:
        with _lock:
            _filtering -= 1
            filters: list[Any] = warnings.filters  # type: ignore[assignment]
            if not _filtering and _filter[0] in filters:
                filters.remove(_filter[0])


_filtering = 0
_filter: list[Any] = []


@contextlib.contextmanager
def searching() -> Iterator[None]:
    """Around one Hypothesis search: seed-only draws, no warning on huge reprs, a settled heap;
    as many at once as there are threads searching."""
    with seed_only_draws(), _quiet_reprs(), settled_heap():
        yield
