"""A claim ruled against the facts once and kept is ruled exactly as a fresh reading rules it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import rulings
from compactcheck.invariants.sentences import LONGEST_KEPT, SentenceIndex

# Claims and facts that say, reword, weaken, change or contradict one another.
_SAYINGS = st.sampled_from(
    [
        "Never push to main",
        "Don't ever push to main",
        "Avoid pushing to main if possible",
        "Use Python 3.12",
        "Use Python 3.11",
        "Use only PostgreSQL",
        "Use PostgreSQL",
        "Keep refunds under $500",
        "Keep refunds under $5000",
        "Add a CSV export to the report page (REP-77)",
        "No new dependencies",
        "Write no new dependencies",
        "Python 3.11 no longer applies",
        "plain words",
    ]
)


def _fresh(claim: str, facts: tuple[str, ...]) -> bool:
    """The ruling read afresh: the claim read alone, each fact ruled in it, nothing kept."""
    own = SentenceIndex([claim])
    return any(rulings.lean_of(fact, own).ruling in rulings._SAID for fact in facts)


@settings(max_examples=300, deadline=None)
@given(_SAYINGS, st.lists(_SAYINGS, max_size=4).map(tuple))
def test_a_kept_claim_ruling_equals_a_fresh_one(claim: str, facts: tuple[str, ...]) -> None:
    # Ruled twice: the second answer comes from what the first kept.
    assert rulings._says_one(claim, facts) == _fresh(claim, facts)
    assert rulings._says_one(claim, facts) == _fresh(claim, facts)


def test_a_claim_longer_than_the_kept_limit_is_not_kept() -> None:
    claim = "Constraint: never push to main. " + "x" * LONGEST_KEPT
    rulings._says_one.cache_clear()
    assert rulings._says_one(claim, ("Never push to main",)) == _fresh(
        claim, ("Never push to main",)
    )
    assert rulings._says_one.kept() == 0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_SAYINGS.map("Constraint: {}.".format), min_size=1, max_size=3),
    st.lists(_SAYINGS, max_size=3),
    st.lists(_SAYINGS, max_size=3),
)
def test_invented_claims_are_found_as_before(
    said: list[str], before: list[str], facts: list[str]
) -> None:
    # The same question twice, then with nothing kept: the same invented claims each time.
    first = rulings.invented(said, before, facts)
    again = rulings.invented(said, before, facts)
    rulings._says_one.cache_clear()
    assert first == again == rulings.invented(said, before, facts)
