"""A sentence index that numbers sentences on demand answers as an eager one does."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import claims
from compactcheck.invariants import rulings as ruling
from compactcheck.invariants.rulings import rule, rulings
from compactcheck.invariants.sentences import Sentence, SentenceIndex, sentences

_PIECES = st.sampled_from(
    [
        "Never push to main",
        "use Python 3.12",
        "(replaces 3.11)",
        "don't touch the API",
        "keep refunds under $500",
        "instead of 3.11",
        "Use only PostgreSQL",
        "if possible",
        "but",
        ";",
        ".",
        "\n",
        "",
        "no longer",
    ]
)
_TEXTS = st.lists(_PIECES, max_size=10).map(" ".join)
_FACTS = st.sampled_from(
    [
        "Never push to main",
        "Use Python 3.12",
        "Keep refunds under $500",
        "Use only PostgreSQL",
        "Don't touch the API",
        "Python 3.11",
    ]
)


_LEMMAS = ["push", "main", "3.12", "3.11", "$500", "api", "postgresql", "never", "use"]


class _Eager:
    """The index as every sentence of every text, numbered and looked up before any question."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.sentences: list[Sentence] = []
        self.by_lemma: dict[str, list[int]] = defaultdict(list)
        for message, text in enumerate(texts):
            for read in sentences(text, message):
                for found in read.lemmas:
                    self.by_lemma[found].append(len(self.sentences))
                self.sentences.append(read)

    def sentence(self, number: int) -> Sentence:
        return self.sentences[number]

    @property
    def lemmas(self) -> frozenset[str]:
        return frozenset(self.by_lemma)

    @property
    def lowered(self) -> str:
        return "\n".join(self.texts).lower()

    def following(self, number: int) -> Sentence | None:
        after = self.sentences[number + 1] if number + 1 < len(self.sentences) else None
        return (
            after if after is not None and after.message == self.sentences[number].message else None
        )

    def holding(self, keys: frozenset[str]) -> dict[int, int]:
        counts: dict[int, int] = defaultdict(int)
        for key in keys:
            for number in self.by_lemma.get(key, ()):
                counts[number] += 1
        return counts


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS, max_size=6), st.lists(st.sampled_from(_LEMMAS), max_size=4))
def test_the_index_numbers_and_finds_sentences_as_an_eager_one(
    texts: list[str], keys: list[str]
) -> None:
    # Twice: the second index is built from the kept readings of the first.
    for _ in range(2):
        lazy, eager = SentenceIndex(texts), _Eager(texts)
        assert len(lazy) == len(eager.sentences)
        assert lazy.holding(frozenset(keys)) == eager.holding(frozenset(keys))
        for number, expected in enumerate(eager.sentences):
            found = lazy.sentence(number)
            assert (found, found.lemmas) == (expected, expected.lemmas)
        assert lazy.sentences == eager.sentences
        assert (lazy.lemmas, lazy.lowered) == (eager.lemmas, eager.lowered)
        assert [lazy.following(n) for n in range(len(lazy))] == [
            eager.following(n) for n in range(len(eager.sentences))
        ]


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, max_size=5), _FACTS, st.sampled_from(["goal", "constraint", "superseded"]))
def test_a_ruling_on_the_lazy_index_equals_one_on_the_eager_index(
    texts: list[str], fact: str, kind: str
) -> None:
    assert rule(fact, SentenceIndex(texts), kind) == rule(fact, _Eager(texts), kind)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.lists(_TEXTS, max_size=4), st.lists(_TEXTS, max_size=4), st.lists(_FACTS, max_size=3))
def test_rulings_on_the_lazy_index_equal_rulings_on_the_eager_index(
    before: list[str], after: list[str], constraints: list[str]
) -> None:
    made = rulings(before, after, "Use Python 3.12", constraints, ["Python 3.11"])
    lazy = vars(ruling)["SentenceIndex"]
    setattr(ruling, "SentenceIndex", _Eager)  # noqa: B010 - the eager reading, then put back
    try:
        eager = rulings(before, after, "Use Python 3.12", constraints, ["Python 3.11"])
    finally:
        setattr(ruling, "SentenceIndex", lazy)  # noqa: B010
    assert made == eager


def _stated_line_by_line(text: str) -> list[str]:
    """The statements of a text, every line matched anew (the reading before lines were kept)."""
    found: list[str] = []
    under = False
    for line in text.splitlines():
        labelled = claims._LABELLED.match(line)
        if labelled is not None:
            found.append(labelled["text"])
            under = False
            continue
        pieces = claims._SENTENCE_START.split(line)[1:]
        later = [m for piece in pieces if (m := claims._LABELLED.match(piece))]
        if later:
            found.extend(m["text"] for m in later)
            under = False
            continue
        if claims._HEADING.match(line):
            under = True
            continue
        item = claims._ITEM.match(line)
        if under and item is not None:
            found.append(item["text"])
        elif line.strip():
            under = False
    return found


_LINES = st.sampled_from(
    [
        "Constraint: Use MySQL 8.",
        "Goal: ship the refund flow",
        "## Constraints",
        "Rules:",
        "- keep refunds under $500",
        "1) [c2] never push to main",
        "* never push to main",
        "Summary: done. Constraint: no new dependencies.",
        "",
        "   ",
        "plain words",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_LINES, max_size=8).map("\n".join), min_size=1, max_size=4))
def test_statements_read_from_kept_lines_equal_a_line_by_line_reading(texts: list[str]) -> None:
    for text in [*texts, *texts]:
        assert ruling.stated(text) == _stated_line_by_line(text)
