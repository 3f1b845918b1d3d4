"""Sentence ends found by the fast pattern are exactly those the plain pattern finds."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from compactcheck.invariants import sentences as reading

# The ends as they read plainly: a stop with closing quotes or brackets before a space or the
# end, a line break, a list bullet between spaces.
_PLAIN = re.compile(r"(?<=[.!?])[\"')\]]*(?:\s+|$)|\n+|\s[\u2022]\s")

# Every character either pattern looks at, and a few it does not, so that drawn texts put
# stops, quotes, brackets, spaces and bullets side by side in every order.
_TEXTS = st.text(alphabet=st.sampled_from(list(".!?\"')] (\n\t\u2003\u2022aZ3-:;")), max_size=40)


def _ends(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Where ``pattern`` finds sentence ends in ``text``, empty ones left out.

    The plain pattern also finds an empty end after a final stop, which only adds an empty
    last piece (``sentences`` skips empty pieces).
    """
    return [match.span() for match in pattern.finditer(text) if match.end() > match.start()]


@settings(max_examples=3000)
@given(_TEXTS)
@example('He said "stop." Then left.')
@example("Done.\n\n - next")
@example("a.)\t b")
@example("a. ' b")
@example("one \u2022 two")
@example("end.")
@example('end."')
def test_sentence_ends_match_the_plain_pattern(text: str) -> None:
    assert _ends(reading._SENTENCE, text) == _ends(_PLAIN, text)
    assert all(match.end() > match.start() for match in reading._SENTENCE.finditer(text))


@given(_TEXTS)
def test_sentences_read_the_same_with_either_pattern(text: str) -> None:
    """What ``sentences`` yields does not depend on the empty last piece."""
    plain = [piece.strip(" \t*-#>") for piece in _PLAIN.split(text)]
    fast = [piece.strip(" \t*-#>") for piece in reading._SENTENCE.split(text)]
    assert [piece for piece in plain if piece] == [piece for piece in fast if piece]


# The clause ends as they read plainly, in the order they are tried.
_PLAIN_CLAUSE = re.compile(
    r"\s*[;:]\s+|\s+[\u2013\u2014]\s+|\s+-\s+"
    r"|,?\s+(?=(?:but|whereas|while|although|though|however)\b)"
    r"|,\s+(?=(?:and|then)\s|[A-Za-z]+n[\u2019']t\b)"
    r"|\s+(?=(?:instead\s+of|rather\s+than|in\s+place\s+of|replac(?:es|ing|ed)|"
    r"superseding|supersedes|formerly|previously)\b)",
    re.IGNORECASE,
)
_CLAUSE_PIECES = st.sampled_from(
    [
        *"but whereas while although though however and then instead of rather than in place "  # noqa: SIM905
        "replaces replacing replaced superseding supersedes formerly previously Use BUT Then "
        "don't won\u2019t Xn't x".split(),
        ";",
        ":",
        ",",
        " ",
        "  ",
        "\t",
        "\n",
        "-",
        "\u2013",
        "\u2014",
        "(",
        "3.12",
    ]
)
_CLAUSES = st.lists(_CLAUSE_PIECES, max_size=16).map("".join)


@settings(max_examples=3000)
@given(_CLAUSES)
@example("Use 3.12; not 3.11")
@example("keep it , but not that")
@example("Don't touch the API, don't ever push to main, and keep refunds under $500")
@example("Use 3.12 instead of 3.11")
@example("a \u2014 b - c :d: e")
def test_clause_ends_match_the_plain_pattern(text: str) -> None:
    assert reading._CLAUSE.split(text) == _PLAIN_CLAUSE.split(text)
