"""A message text's negations rewritten once and kept read exactly as a fresh rewriting does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.laws.messages import mentions as content
from compactcheck.invariants.sentences import LONGEST_KEPT

_PIECES = st.sampled_from(
    ["Never", "push", "to main", "don't", "NO", "no longer", "Nothing", "cannot", "won\u2019t",
     "Use 3.12", "\n", " ", "not", "none", "without"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=12).map(" ".join)
# Past the longest text kept, a text is rewritten afresh at each reading.
_LONG = st.tuples(_TEXTS, st.integers(1, 3)).map(
    lambda drawn: drawn[0] + " never" * (LONGEST_KEPT // 6 + drawn[1])
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS | _LONG, min_size=1, max_size=4))
def test_a_kept_polar_reading_equals_a_fresh_one(texts: list[str]) -> None:
    for text in [*texts, *texts]:
        fresh = content._NEGATING.sub("not", text)
        assert content._polar_lowered(text) == (fresh, fresh.lower())
