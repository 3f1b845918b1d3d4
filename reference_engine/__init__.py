"""Reference compactors: the snapshot engine (seed 000), the session engine (seed 002), the messages
compactor and the mutants; ``shared_semantics`` is the one contract they share with the harness.
"""
