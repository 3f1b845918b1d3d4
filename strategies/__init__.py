"""Hypothesis strategies: one scenario generator, projected into every view."""
