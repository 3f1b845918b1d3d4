"""Broken compactors of the provider formats, one per structural law, each breaking it the way
real ones do (the public reports each law's statement names).

Each is the format's reference compactor (``compactcheck.reference_engine.messages.native``) with
one bug: a cut that ignores the format's units, or an edit of what the reference answers. They take
and return the format's request as JSON data, and are capped at a few messages so that they compact.
"""

from __future__ import annotations

from compactcheck.reference_engine.mutants.formats import anthropic, gemini, responses
from compactcheck.reference_engine.mutants.mutant import Mutant

__all__ = ["FORMAT_MUTANTS"]

FORMAT_MUTANTS: tuple[Mutant, ...] = (*anthropic.MUTANTS, *responses.MUTANTS, *gemini.MUTANTS)
