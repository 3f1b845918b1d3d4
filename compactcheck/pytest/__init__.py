"""The pytest plugin: one test per (target, view, invariant); ``plugin`` is what pytest loads."""
