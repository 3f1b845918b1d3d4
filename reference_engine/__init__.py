"""Reference compactors: the snapshot engine (seed 000) and the session engine (seed 002)."""
