"""A kept reading answers each lemma asked of it as a reading of every lemma at once does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import sentences as reading
from compactcheck.invariants.sentences import SentenceIndex, sentences

_PIECES = st.sampled_from(
    [
        "Never push to main",
        "use Python 3.12",
        "(replaces 3.11)",
        "don't touch the API",
        "keep refunds under $500",
        "Use only PostgreSQL",
        "pushing",
        ";",
        ".",
        "\n",
        "no longer",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=10).map(" ".join)
_LEMMAS = st.sampled_from(["push", "main", "3.12", "3.11", "$500", "api", "never", "use", "nope"])


def _every_lemma_at_once(texts: list[str], keys: frozenset[str]) -> dict[int, int]:
    """Each sentence holding a key, with how many it holds: every sentence read and counted."""
    counts: dict[int, int] = {}
    number = 0
    for text in texts:
        for sentence in sentences(text):
            held = len(sentence.lemmas & keys)
            if held:
                counts[number] = held
            number += 1
    return counts


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_TEXTS, min_size=1, max_size=5),
    st.lists(st.frozensets(_LEMMAS, max_size=4), min_size=1, max_size=4),
)
def test_lemmas_asked_one_after_another_are_found_as_all_at_once(
    texts: list[str], asked: list[frozenset[str]]
) -> None:
    # Each question on a new index of the same texts: later ones read what earlier ones filled.
    for keys in asked:
        assert dict(SentenceIndex(texts).holding(keys)) == _every_lemma_at_once(texts, keys)
    for text in texts:
        kept = reading._read_text(text)
        assert kept.lemmas == frozenset().union(*(s.lemmas for s in kept.sentences))
        # At most one entry per lemma the text holds: the memory stays the eager reading's.
        assert set(kept.by_lemma) <= kept.lemmas
