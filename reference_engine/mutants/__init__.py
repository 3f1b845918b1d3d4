"""Deliberately broken compactors, one or more per invariant and view."""

from compactcheck.reference_engine.mutants.mutant import Mutant

__all__ = ["Mutant"]
