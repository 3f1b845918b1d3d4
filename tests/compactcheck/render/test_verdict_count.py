"""A count of one verdict reads as English: the nouns take their plural, the adjectives do not."""

from __future__ import annotations

import pytest

from compactcheck.render._digest import verdict_count


@pytest.mark.parametrize(
    ("count", "verdict", "said"),
    [
        (1, "violation", "1 violation"),
        (5, "violation", "5 violations"),
        (0, "review", "0 reviews"),
        (2, "review", "2 reviews"),
        (3, "pass", "3 pass"),
        (2, "skipped", "2 skipped"),
        (4, "errored", "4 errored"),
    ],
)
def test_a_verdict_count_takes_the_plural_its_verdict_needs(
    count: int, verdict: str, said: str
) -> None:
    assert verdict_count(count, verdict) == said
