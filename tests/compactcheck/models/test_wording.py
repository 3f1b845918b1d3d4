"""The wording fake: restates each line as a model would (contractions, synonyms, reordered
clauses, word forms), deterministically from its seed, and loses no fact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants.tokens import TOKEN, TokenIndex, distinctive_tokens
from compactcheck.models import ModelRequest, ModelSlot, Turn, WordingModel, check_name
from compactcheck.models.fakes import FAKE_TYPES
from compactcheck.models.wording import reword_line
from compactcheck.strategies.vocabulary import CONSTRAINTS, GOALS

WORDS = st.sampled_from(
    [
        "Use", "use", "the", "a", "is", "Never", "never", "not", "Do", "only", "push", "to",
        "main", "Python", "3.12", "ENG-4417", "src/app.py", "Alice", "API", "deploy", "for",
        "in", "Keep", "functions", "under", "40", "lines", "no", "Write", "nothing", "that",
        "contains", "Every", "v2.0.1", "50%", "config.yaml", "#42", "tests", "(AUTH-142)", ".",
    ]
)  # fmt: skip
LINES = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
FRAMED = st.tuples(st.sampled_from(["", "- [c3] ", "Constraint: ", "- user said: "]), LINES).map(
    "".join
)
NEGATED = re.compile(r"\b(?:not|never|no|nothing|only|none|without)\b|n't\b", re.IGNORECASE)


@given(FRAMED, st.integers(0, 5))
def test_every_distinctive_token_and_number_of_a_line_survives_its_rewording(
    line: str, seed: int
) -> None:
    said = reword_line(line, seed)
    index = TokenIndex(said)
    assert all(index.holds(token) for token in distinctive_tokens(line)), said
    numbers = sorted(w for w in (m.group() for m in TOKEN.finditer(line)) if w.isdigit())
    assert numbers == sorted(w for w in (m.group() for m in TOKEN.finditer(said)) if w.isdigit())


@given(FRAMED, st.integers(0, 5))
def test_a_negated_line_stays_negated_and_a_plain_one_gains_no_negation(
    line: str, seed: int
) -> None:
    said = reword_line(line, seed)
    assert bool(NEGATED.search(said)) == bool(NEGATED.search(line)), said


@pytest.mark.parametrize(
    ("said", "restated"),
    [
        ("Do not touch the public API", "Don't touch the public API"),
        ("Never push to main", "Don't ever push to main"),
        ("Write no new dependencies", "Don't add any new dependencies"),
        (
            "Log nothing that contains a user's email",
            "Don't log anything containing a user's email",
        ),
        ("Keep functions under 40 lines", "Keep each function under 40 lines"),
        ("Use Python 3.12 for ENG-4417.", "For ENG-4417, use Python 3.12."),
        ("Fix the login bug (AUTH-142)", "AUTH-142: fix the login bug"),
    ],
)
def test_the_wording_fake_restates_as_the_issue_quotes_models_do(said: str, restated: str) -> None:
    assert restated in {reword_line(said, seed) for seed in range(8)}


def test_the_seed_fixes_the_wording_and_another_seed_words_some_line_otherwise() -> None:
    texts = "\n".join((*CONSTRAINTS, *GOALS, "Use Python 3.12 for ENG-4417."))
    request = ModelRequest(turns=(Turn(role="user", text=texts),))
    assert WordingModel(3).answer(request) == WordingModel(3).answer(request)
    answers = {WordingModel(seed).answer(request) for seed in range(6)}
    assert len(answers) > 1
    assert all(answer != texts for answer in answers)


def test_an_update_note_stays_after_the_value_it_is_replaced_by() -> None:
    said = reword_line("- [c7] Push only to the release branch (replaces [c3] Never push to main)")
    assert said.startswith("- [c7] ")
    assert said.index("release branch") < said.index("push to main")


def test_the_wording_fake_says_it_is_a_fake_and_is_chosen_by_name(tmp_path: Path) -> None:
    assert check_name("wording") == "wording"
    model = ModelSlot("wording").model()
    assert isinstance(model, WordingModel)
    assert model.name == "wording"
    assert isinstance(model, FAKE_TYPES)
    assert "fake" in (WordingModel.__doc__ or "").lower()
    # Free and deterministic: never recorded in the model cache.
    metered = ModelSlot("wording", cache_dir=tmp_path).open()
    request = ModelRequest(turns=(Turn(role="user", text="Do not touch the public API"),))
    assert metered.answer(request) == "Don't touch the public API"
    assert list(tmp_path.iterdir()) == []


def test_a_capitalised_word_after_never_keeps_its_capital() -> None:
    # Found by the property above: "Use" capitalised mid-line is a distinctive token.
    assert reword_line("Never Use", 0) == "Don't ever Use"
    assert reword_line("Never push to main", 0) == "Don't ever push to main"
