"""The phrasing fake: restates each goal and rule in the shapes models give them (the object
fronted, the passive, the second person, a state, a label, a stress, replacement notes, merged
rules), deterministically from its seed, and loses no fact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compactcheck.invariants.tokens import TOKEN, TokenIndex, distinctive_tokens
from compactcheck.models import ModelRequest, ModelSlot, PhrasingModel, Turn, check_name
from compactcheck.models.fakes import FAKE_TYPES
from compactcheck.models.phrasing import STRESS, phrase_line, phrase_lines
from compactcheck.strategies.vocabulary import CONSTRAINTS, GOALS

RULES = [
    *CONSTRAINTS,
    "Deploy only from the release branch",
    "Never run the load tests against production",
    "Do not change the schema of the events table",
    "Pin numpy to 1.26.4",
    "Store invoices as PDF/A",
    "Answer the customers in German",
    "Push to staging before 18:00",
]
WORDS = st.sampled_from(
    [
        "Use", "use", "the", "a", "Never", "never", "not", "Do", "only", "push", "to", "main",
        "Python", "3.12", "ENG-4417", "src/app.py", "API", "Keep", "keep", "touch", "under",
        "40", "lines", "no", "Write", "nothing", "Every", "v2.0.1", "50%", "config.yaml", "in",
        "for", "users", "Answer", "stays",
    ]
)  # fmt: skip
TEXTS = st.one_of(st.sampled_from(RULES), st.lists(WORDS, min_size=1, max_size=10).map(" ".join))
IDS = st.integers(1, 30).map(lambda n: f"c{n}")
BULLETS = st.tuples(IDS, TEXTS).map(lambda pair: f"- [{pair[0]}] {pair[1]}")
LINES = st.one_of(
    BULLETS,
    TEXTS.map("Constraint: {}".format),
    st.sampled_from(GOALS).map("Goal: {}".format),
    st.tuples(IDS, TEXTS, IDS, TEXTS).map(lambda p: "- [{}] {} (replaces [{}] {})".format(*p)),
    TEXTS,
)
NEGATED = re.compile(r"\b(?:not|never|no|nothing|only|none|without)\b|n't\b", re.IGNORECASE)
# The states that carry a negation of their own ("stays untouched").
UNDONE = re.compile(r"\b(?:untouched|unchanged|unmodified)\b")


def _negations(text: str) -> int:
    """The negations of the rules in ``text``: the fake's stress phrases, which change no
    polarity, and the "no longer applies" of a replacement note, which speaks of the old rule,
    left out."""
    for phrase in (*STRESS, " no longer applies"):
        text = text.replace(phrase, "")
    return len(NEGATED.findall(text)) + len(UNDONE.findall(text))


def _numbers(text: str) -> list[str]:
    # A numbered list's markers ("1. ") number the list, not a fact.
    text = re.sub(r"(?m)^\d+\. ", "", text)
    return sorted(w for w in (m.group() for m in TOKEN.finditer(text)) if w.isdigit())


def _keeps(source: str, said: str) -> None:
    index = TokenIndex(said)
    assert all(index.holds(token) for token in distinctive_tokens(source)), (source, said)
    assert _numbers(source) == _numbers(said), (source, said)
    assert _negations(said) == _negations(source), (source, said)


@given(LINES, st.integers(0, 7))
def test_a_phrased_line_keeps_every_distinctive_token_number_and_negation(
    line: str, seed: int
) -> None:
    _keeps(line, phrase_line(line, seed))


@given(st.lists(BULLETS, min_size=1, max_size=6), st.integers(0, 7))
def test_merged_rules_keep_every_token_number_and_negation_of_every_rule(
    lines: list[str], seed: int
) -> None:
    _keeps("\n".join(lines), "\n".join(phrase_lines(lines, seed)))


def _shapes(line: str) -> set[str]:
    return {phrase_line(line, seed) for seed in range(40)}


@pytest.mark.parametrize(
    ("line", "restated"),
    [
        ("- [c2] Do not touch the public API", "- [c2] The public API: do not touch it."),
        ("- [c2] Do not touch the public API",
         "- [c2] Rule in force: The public API: do not touch it."),
        ("- [c2] Do not touch the public API", "- [c2] The public API must not be touched."),
        ("- [c2] Do not touch the public API", "- [c2] You must not touch the public API."),
        ("- [c2] Do not touch the public API", "- [c2] The public API stays untouched."),
        ("- [c3] Never push to main", "- [c3] Main must never be pushed to."),
        ("- [c3] Never push to main", "- [c3] You must never push to main."),
        ("- [c4] Keep test coverage above 90%", "- [c4] Test coverage: keep it above 90%."),
        ("- [c4] Keep test coverage above 90%", "- [c4] Test coverage stays above 90%."),
        ("- [c6] Push only to the release branch", "- [c6] The release branch: push only to it."),
        ("Constraint: Every database change needs a migration",
         "Constraint: Every database change needs a migration, without exception."),
        ("- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)",
         "- [c5] Rule update: Use Python 3.12, in place of the earlier rule [c1]: "
         "use Python 3.11."),
        ("- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)",
         "- [c5] Use Python 3.12 (this replaces the earlier rule [c1]: use Python 3.11)."),
        ("- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)",
         "- [c5] Use Python 3.12; the earlier rule [c1] (use Python 3.11) no longer applies."),
        ("Goal: Fix the login bug (AUTH-142)", "The user's goal: fix the login bug (AUTH-142)."),
        ("Goal: Fix the login bug (AUTH-142)", "You are to fix the login bug (AUTH-142)."),
    ],
)  # fmt: skip
def test_the_phrasing_fake_restates_as_models_write_summaries(line: str, restated: str) -> None:
    assert restated in _shapes(line)


def test_every_rule_is_restated_and_a_plain_line_is_reworded_as_the_wording_fake_does() -> None:
    for rule in RULES:
        assert f"- [c1] {rule}" not in _shapes(f"- [c1] {rule}")
    # A line that states no fact: the wording fake's moves.
    assert phrase_line("I will read the module before changing it.", 0) == (
        "I'll read the module before changing it."
    )


def test_a_run_of_rules_is_merged_into_one_sentence_or_numbered_for_some_seed() -> None:
    lines = [f"- [c{n}] {rule}" for n, rule in enumerate(CONSTRAINTS[1:4], 2)]
    answers = {tuple(phrase_lines(lines, seed)) for seed in range(40)}
    merged = (
        "- Rules in force ([c2], [c3], [c4]): do not touch the public API; never push to main; "
        "and keep test coverage above 90%.",
    )
    assert merged in answers
    assert any(answer[0].startswith("1. [c2] ") for answer in answers)
    # An update keeps its own line and its note: it is never merged away.
    update = "- [c5] Use Python 3.12 (replaces [c1] Use Python 3.11)"
    for seed in range(40):
        assert sum("[c1]" in line for line in phrase_lines([*lines, update], seed)) == 1


def test_a_tagged_goal_keeps_its_tags() -> None:
    line = '<message type="human">Goal: Fix the login bug (AUTH-142)</message>'
    for said in _shapes(line):
        assert said.startswith('<message type="human">')
        assert said.endswith("</message>")


def test_the_seed_fixes_the_phrasing_and_another_seed_phrases_some_line_otherwise() -> None:
    texts = "\n".join(f"- [c{n}] {rule}" for n, rule in enumerate(RULES, 1))
    request = ModelRequest(turns=(Turn(role="user", text=texts),))
    assert PhrasingModel(3).answer(request) == PhrasingModel(3).answer(request)
    answers = {PhrasingModel(seed).answer(request) for seed in range(6)}
    assert len(answers) > 1
    assert texts not in answers


def test_the_phrasing_fake_says_it_is_a_fake_and_is_chosen_by_name(tmp_path: Path) -> None:
    assert check_name("phrasing") == "phrasing"
    model = ModelSlot("phrasing").model()
    assert isinstance(model, PhrasingModel)
    assert model.name == "phrasing"
    assert isinstance(model, FAKE_TYPES)
    assert "fake" in (PhrasingModel.__doc__ or "").lower()
    # Free and deterministic: never recorded in the model cache.
    metered = ModelSlot("phrasing", cache_dir=tmp_path).open()
    text = "Constraint: Do not touch the public API"
    request = ModelRequest(turns=(Turn(role="user", text=text),))
    assert metered.answer(request) == PhrasingModel().answer(request)
    assert list(tmp_path.iterdir()) == []
