"""Sentences, clauses and stated rules read once and kept read exactly as a fresh reading does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import claims
from compactcheck.invariants import sentences as reading
from compactcheck.invariants.rulings import stated
from compactcheck.invariants.sentences import Sentence, sentences

# Words and marks the sentence reader splits on, so that drawn texts have clauses and asides.
_PIECES = st.sampled_from(
    [
        "Never push to main",
        "use 3.12",
        "(replaces 3.11)",
        "don't touch the API",
        "keep refunds under $500",
        "instead of 3.11",
        "nothing else",
        "but",
        ";",
        ",",
        ".",
        " - ",
        "\n",
        "no longer",
        "won't",
        "was $400",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=12).map(" ".join)


def _fresh(text: str, message: int) -> list[Sentence]:
    """A reading of ``text`` that keeps nothing: every clause split and read anew."""
    found: list[Sentence] = []
    for raw in reading._SENTENCE.split(text):
        stripped = raw.strip(" \t*-#>")
        if not stripped:
            continue
        asides = reading._ASIDE.findall(stripped)
        parts = [*reading._CLAUSE.split(reading._ASIDE.sub(" ", stripped)), *asides]
        clauses = tuple(reading._clause.__wrapped__(part) for part in parts if part.strip())
        if clauses:
            found.append(Sentence(stripped, clauses, message))
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=4), st.integers(0, 3))
def test_a_kept_reading_equals_a_fresh_one(texts: list[str], message: int) -> None:
    # Read each text twice: the second reading comes from what the first kept.
    for text in [*texts, *texts]:
        kept = list(sentences(text, message))
        assert kept == _fresh(text, message)
        assert [sentence.lemmas for sentence in kept] == [
            sentence.lemmas for sentence in _fresh(text, message)
        ]


_LINES = st.sampled_from(
    [
        "Constraint: Use MySQL 8.",
        "Goal: ship the refund flow",
        "## Constraints",
        "- keep refunds under $500",
        "* never push to main",
        "Summary: done. Constraint: no new dependencies.",
        "",
        "plain words",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_LINES, max_size=6).map("\n".join), min_size=1, max_size=4))
def test_a_kept_statement_reading_equals_a_fresh_one(texts: list[str]) -> None:
    # Read each text twice: the second reading comes from what the first kept.
    for text in [*texts, *texts]:
        kept = stated(text)
        assert kept == list(claims.stated_claims.__wrapped__(text))
        # The list handed out is the caller's own: editing it leaves the kept reading alone.
        kept.append("edited")
        assert "edited" not in stated(text)
