"""A mutant: a deliberately broken compactor, and the invariant it must be caught by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants.catalogue import View
from compactcheck.invariants.facts import Budget


@dataclass(frozen=True)
class Mutant:
    """A broken compactor that breaks ``targets`` the way a real compactor plausibly would.

    ``build`` returns a fresh backend for the view: for ``messages`` a callable from a list of
    OpenAI chat dicts to a list of them; for ``snapshot`` a snapshot engine (see
    ``compactcheck.reference_engine.mutants.snapshot``); for ``session`` a session engine.
    ``max_witness`` bounds the size of its shrunk history (events or messages); ``budget`` is
    the budget it is judged against when the caller declares none.
    """

    name: str
    view: View
    targets: str
    description: str
    build: Callable[[], Any]
    max_witness: int = 12
    # The budget the facts declare when it is judged (a budget mutant needs one to break).
    budget: Budget | None = None
    # The malformed-input scenarios its bug needs to show (run --malformed): a bug that only
    # input a provider rejects can reveal.
    malformed: tuple[str, ...] = ()
    # The wire format a messages mutant speaks (None: chat completions); it is built on that
    # format's reference compactor and breaks a structural law of the format.
    format: str | None = None
