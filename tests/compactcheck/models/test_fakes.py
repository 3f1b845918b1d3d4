"""The honest fakes: paraphrase rewords and keeps every distinctive token; lossy drops exactly
the tokens it says."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants.tokens import STOPWORDS, TOKEN, TokenIndex, distinctive_tokens
from compactcheck.models import EchoModel, LossyModel, ModelRequest, ParaphraseModel, Turn

WORDS = st.sampled_from(
    [
        "Use", "use", "the", "a", "is", "never", "not", "only", "push", "to", "main", "Python",
        "3.12", "ENG-4417", "src/app.py", "Alice", "API", "IT", "deploy", "and", "for", "with",
        "v2.0.1", "50%", "config.yaml", "Do", "keep", "#42", "tests",
    ]
)  # fmt: skip
LINES = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
TEXTS = st.lists(LINES, min_size=1, max_size=4).map("\n".join)
REQUESTS = st.builds(
    lambda system, texts: ModelRequest(
        system=system, turns=tuple(Turn(role="user", text=text) for text in texts)
    ),
    st.sampled_from(["", "Summarise the conversation."]),
    st.lists(TEXTS, min_size=1, max_size=3),
)


def _lines(request: ModelRequest) -> list[str]:
    texts = [request.system, *(turn.text for turn in request.turns)]
    return [line for text in texts for line in text.splitlines() if line.strip()]


@given(REQUESTS)
def test_paraphrase_keeps_every_distinctive_token_of_every_line_in_order(
    request: ModelRequest,
) -> None:
    answer = ParaphraseModel().answer(request).splitlines()
    lines = _lines(request)
    assert len(answer) == len(lines)
    for said, line in zip(answer, lines, strict=True):
        assert distinctive_tokens(said) == distinctive_tokens(line)
        index = TokenIndex(said)
        assert all(index.holds(token) for token in distinctive_tokens(line))


@given(REQUESTS)
def test_paraphrase_invents_no_word_and_changes_the_wording(request: ModelRequest) -> None:
    answer = ParaphraseModel().answer(request)
    told = {match.group().lower() for line in _lines(request) for match in TOKEN.finditer(line)}
    said = {match.group().lower() for match in TOKEN.finditer(answer)}
    assert said <= told | STOPWORDS
    for line, reworded in zip(_lines(request), answer.splitlines(), strict=True):
        assert reworded != line
    assert answer != EchoModel().answer(request)


def test_paraphrase_rewords_a_constraint_the_way_a_summary_would() -> None:
    request = ModelRequest(turns=(Turn(role="user", text="Use Python 3.12 for ENG-4417."),))
    answer = ParaphraseModel().answer(request)
    assert "Use Python 3.12" not in answer
    assert distinctive_tokens(answer) == ("Python", "3.12", "ENG-4417")


@given(REQUESTS)
def test_lossy_drops_exactly_the_tokens_it_says(request: ModelRequest) -> None:
    model = LossyModel()
    answer = model.answer(request)
    dropped = model.dropped(request)
    told = distinctive_tokens(request.text())
    # Compared as the tokens written: a name may open the line once what stood before it went,
    # and is then no longer read as distinctive there, but it is still in the answer.
    written = [match.group() for match in TOKEN.finditer(answer)]
    assert set(written) & set(told) == {t for t in told if t not in dropped}
    assert not set(written) & set(dropped)
    assert set(dropped) == {token for token in told if LossyModel.drops(token)}


def test_lossy_drops_some_tokens_and_keeps_others() -> None:
    text = " ".join(f"ENG-{number}" for number in range(100, 140))
    request = ModelRequest(turns=(Turn(role="user", text=text),))
    dropped = LossyModel().dropped(request)
    assert 0 < len(dropped) < 40
    assert LossyModel().dropped(request) == dropped
