"""Negations are rewritten line by line, or not at all where a quick search finds none, as a
plain rewriting of the whole text rewrites them."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compactcheck.invariants.laws.messages import mentions as content

# Words that negate, words that only look like it, cases and the characters a case-insensitive
# match treats as letters it is not (the Kelvin sign, a long s, a dotted capital I).
_PIECES = st.sampled_from(
    [
        *"never not nothing none without cannot no longer don't won\u2019t isn't NOT Never "  # noqa: SIM905
        "WITHOUT N'T know node now annotation newt wit withhold n t o w".split(),
        " ",
        "\n",
        "\n\n",
        " \r\n",
        "no\n",
        "'",
        "\u2019",
        "-",
        "_",
        "3",
        "\u212a",
        "\u017f",
        "W\u0130THOUT",
        "\u0130",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=12).map("".join) | st.text(
    alphabet="nNoOwWeEvVrRtT'\u2019 ithu\u0130", max_size=20
)


@settings(max_examples=3000)
@given(_TEXTS)
@example("Don't ever push to main")
@example("no\\nlonger")
@example("W\u0130THOUT tests")
@example("the node is now known")
@example("it is no\nlonger used; not that")
@example("NO  \r\n  longer\nnever")
@example("x" * 20_001 + " not\nnever")
def test_polar_equals_the_plain_rewriting(text: str) -> None:
    # Twice: the second reading of each line comes from what the first kept.
    assert content._polar(text) == content._NEGATING.sub("not", text)
    assert content._polar(text) == content._NEGATING.sub("not", text)
